package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Philox;
import dev.symbiont.core.backend.RandomKind;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Philox random numbers and the device-side index check on the PTX interpreter against the reference backend. */
class CudaRandomAndIndexCheckTest {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();

    @ParameterizedTest
    @CsvSource({"UNIFORM, 1, 0, 0", "UNIFORM, 1031, 42, 7", "NORMAL, 1, 3, 0", "NORMAL, 33, -5, 123456789",
            "NORMAL, 2049, 20260101, 4294967295", "UNIFORM, 31, 9223372036854775807, 4294967296", "NORMAL, 32768, 1234, 99"})
    void randomIsBitIdenticalToPhilox(RandomKind kind, int n, long seed, long offset) {
        float[] expected = new float[n];
        Philox.fill(kind, expected, 0, n, seed, offset);
        float[] actual = (float[]) cuda.download(cuda.random(kind, n, seed, offset), Layout.contiguous(n));
        for (int i = 0; i < n; i++) {
            assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(actual[i]),
                    kind + " element " + i + " of seed " + seed + " at offset " + offset + ": " + expected[i] + " vs " + actual[i]);
        }
    }

    @Test
    void anEmptyDrawIsEmptyAndANegativeSizeIsNamed() {
        assertEquals(0, cuda.random(RandomKind.NORMAL, 0, 1, 0).size());
        var e = assertThrows(IllegalArgumentException.class, () -> cuda.random(RandomKind.UNIFORM, -3, 1, 0));
        assertEquals("random: negative size -3", e.getMessage());
    }

    /**
     * The rare branches of fdlibm's log and sin/cos reduction, which a few thousand draws do not
     * reach: angles whose high word is that of n·π/2 (the extra reduction steps of rem_pio2) and
     * radii of u1 within 2⁻²⁰ of 1 or of ½ (log's small-f paths). Blocks of one seed that hit each
     * are found on the host, then drawn on the device and compared bit for bit.
     */
    @Test
    void normalDrawsMatchPhiloxInFdlibmsRareBranches() {
        long seed = 77;
        int[] angleHighWords = {0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB};
        long[] found = new long[angleHighWords.length + 2];
        java.util.Arrays.fill(found, -1);
        int[] w = new int[4];
        int missing = found.length;
        for (long b = 0; b < (1L << 26) && missing > 0; b++) {
            Philox.block(seed, b, w);
            for (int pair = 0; pair < 4; pair += 2) {
                int high = (int) (Double.doubleToRawLongBits(Philox.angle(w[pair + 1])) >>> 32);
                long u = (w[pair] & 0xFFFFFFFFL) + 1;
                for (int c = 0; c < found.length; c++) {
                    boolean hit = c < angleHighWords.length ? high == angleHighWords[c]
                            : c == angleHighWords.length ? u > (1L << 32) - (1L << 12) : u >= (1L << 31) && u < (1L << 31) + (1L << 11);
                    if (hit && found[c] < 0) {
                        found[c] = b;
                        missing--;
                    }
                }
            }
        }
        for (int c = 0; c < found.length; c++) {
            long b = found[c];
            assertTrue(b >= 0, "no block of seed " + seed + " reaches rare branch " + c);
            float[] expected = new float[4];
            Philox.fill(RandomKind.NORMAL, expected, 0, 4, seed, b);
            float[] actual = (float[]) cuda.download(cuda.random(RandomKind.NORMAL, 4, seed, b), Layout.contiguous(4));
            for (int i = 0; i < 4; i++) {
                assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(actual[i]),
                        "rare branch " + c + ", block " + b + ", element " + i + ": " + expected[i] + " vs " + actual[i]);
            }
        }
    }

    @Test
    void idsOfEveryLayoutComeOutContiguousWithTheIgnoredOnesZeroed() {
        long[] ids = {3, -100, 0, 4, 1, -100, 2, 4, 0, 1, 3, 2};
        Layout transposed = Layout.contiguous(3, 4).transpose(0, 1);
        Backend.IndexCheck c = cuda.checkIndex("cross_entropy", cuda.upload(DType.INT64, ids), transposed, 5, OptionalLong.of(-100));
        Backend.IndexCheck r = reference.checkIndex("cross_entropy", reference.upload(DType.INT64, ids), transposed, 5, OptionalLong.of(-100));
        Layout out = Layout.contiguous(4, 3);
        assertArrayEquals((long[]) reference.download(r.ids(), out), (long[]) cuda.download(c.ids(), out));
        assertArrayEquals((float[]) reference.download(r.keep(), out), (float[]) cuda.download(c.keep(), out));
    }

    @Test
    void int32IdsAreWidened() {
        int[] ids = new int[300];
        for (int i = 0; i < ids.length; i++) ids[i] = (i * 7) % 11;
        Backend.IndexCheck c = cuda.checkIndex("one_hot", cuda.upload(DType.INT32, ids), Layout.contiguous(300), 11, OptionalLong.empty());
        long[] expected = new long[300];
        for (int i = 0; i < ids.length; i++) expected[i] = ids[i];
        assertArrayEquals(expected, (long[]) cuda.download(c.ids(), Layout.contiguous(300)));
    }

    @Test
    void theFirstBadIdRaisesTheReferenceMessageAtTheNextSynchronisation() {
        int[] ids = new int[600];
        ids[517] = 9;
        ids[301] = -1;
        ids[555] = 12;
        Layout layout = Layout.contiguous(20, 30);
        String expected = assertThrows(IndexOutOfBoundsException.class, () -> reference.checkIndex("gather",
                reference.upload(DType.INT32, ids), layout, 9, OptionalLong.of(-100))).getMessage();
        cuda.checkIndex("gather", cuda.upload(DType.INT32, ids), layout, 9, OptionalLong.of(-100));
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, cuda::synchronize);
        assertEquals(expected, e.getMessage());
        cuda.synchronize(); // raised once: the slot is cleared
    }

    @Test
    void theMessageNamesTheBadIdEvenWhenEveryBufferWasReleasedBeforeTheSynchronisation() {
        long[] ids = new long[40];
        ids[33] = 1L << 40;
        Storage s = cuda.upload(DType.INT64, ids);
        Backend.IndexCheck c = cuda.checkIndex("embedding", s, Layout.contiguous(40), 7, OptionalLong.empty());
        c.ids().release();
        c.keep().release();
        s.release();
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, cuda::synchronize);
        assertEquals("embedding: index 1099511627776 at position [33] is outside [0, 7)", e.getMessage());
    }

    @Test
    void checksPastOneBlockOfSlotsWaitForTheSynchronisationAndTheFirstFailedOneIsRaised() {
        Storage good = cuda.upload(DType.INT64, new long[] {0, 1, 2});
        Storage bad = cuda.upload(DType.INT64, new long[] {0, 5, 2});
        int checks = 3 * 256 / 2 + 7;                     // three blocks of two-word checks and a few more
        for (int i = 0; i < checks; i++) {
            Storage ids = i == 200 || i == 300 ? bad : good;
            cuda.checkIndex("embedding " + i, ids, Layout.contiguous(3), 3, OptionalLong.empty()).keep().release();
        }
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, cuda::synchronize);
        assertEquals("embedding 200: index 5 at position [1] is outside [0, 3)", e.getMessage());
        cuda.synchronize(); // every block was cleared
    }
}
