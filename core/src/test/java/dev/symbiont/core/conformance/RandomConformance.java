package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.RandomKind;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The device-side primitives: {@code random} must give the reference's Philox bits exactly,
 * for every size (odd ones, ones that split into parallel chunks) and offset; {@code checkIndex}
 * must keep the reference's ids, mask and error.
 */
public abstract class RandomConformance {

    protected abstract Backend backend();

    private static final int[] SIZES = {0, 1, 2, 3, 4, 5, 7, 13, 31, 64, 207, 1023, 4098, 16_383, 16_385, 65_537, 200_003};
    private static final long[] OFFSETS = {0, 1, 5, 0xFFFF_FFFFL, 1L << 40, Long.MAX_VALUE - 100_000};
    private static final long[] SEEDS = {0, 42, -1, 0x1234_5678_9ABC_DEF0L};

    private static float[] download(Backend be, Storage s) {
        return (float[]) be.download(s, Layout.contiguous(new int[] {Math.toIntExact(s.size())}));
    }

    @Test
    void randomIsBitIdenticalToTheReferenceForEverySizeOffsetAndSeed() {
        Backend be = backend(), ref = new ReferenceBackend();
        for (RandomKind kind : RandomKind.values()) {
            for (int size : SIZES) {
                for (long offset : OFFSETS) {
                    long seed = SEEDS[Math.floorMod(size * 31L + offset, SEEDS.length)];
                    float[] want = download(ref, ref.random(kind, size, seed, offset));
                    float[] got = download(be, be.random(kind, size, seed, offset));
                    assertEquals(size, got.length);
                    for (int i = 0; i < size; i++) {
                        if (Float.floatToRawIntBits(want[i]) != Float.floatToRawIntBits(got[i])) {
                            throw new AssertionError(kind + " size " + size + " seed " + seed + " offset " + offset
                                    + ": element " + i + " is " + got[i] + ", reference " + want[i]);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aDrawAtALaterOffsetContinuesTheSameStream() {
        Backend be = backend();
        for (RandomKind kind : RandomKind.values()) {
            float[] whole = download(be, be.random(kind, 70_001, 3, 10));
            float[] tail = download(be, be.random(kind, 70_001 - 4 * 123, 3, 10 + 123));
            for (int i = 0; i < tail.length; i++) assertEquals(whole[i + 4 * 123], tail[i], kind + " element " + i);
        }
    }

    @Test
    void checkIndexKeepsIdsMasksIgnoredOnesAndNamesABadId() {
        Backend be = backend(), ref = new ReferenceBackend();
        long[] ids = {3, -100, 0, 4, -100, 1};
        Layout strided = new Layout(new int[] {2, 2}, new int[] {1, 3}, 1); // a transposed view over ids[1..]
        for (Backend b : new Backend[] {be, ref}) {
            Storage s = b.upload(DType.INT64, ids);
            Backend.IndexCheck c = b.checkIndex("cross_entropy", s, Layout.contiguous(new int[] {6}), 5, OptionalLong.of(-100));
            assertArrayEquals(new long[] {3, 0, 0, 4, 0, 1}, (long[]) b.download(c.ids(), Layout.contiguous(new int[] {6})));
            assertArrayEquals(new float[] {1, 0, 1, 1, 0, 1}, download(b, c.keep()));
            Backend.IndexCheck view = b.checkIndex("cross_entropy", s, strided, 5, OptionalLong.of(-100));
            assertArrayEquals(new long[] {0, 0, 0, 1}, (long[]) b.download(view.ids(), Layout.contiguous(new int[] {4})));
            assertArrayEquals(new float[] {0, 0, 1, 1}, download(b, view.keep()));

            // a device backend may raise at its next synchronisation (Backend.checkIndex), with the same message
            var e = assertThrows(IndexOutOfBoundsException.class, () -> {
                b.checkIndex("one_hot", s, Layout.contiguous(new int[] {2, 3}), 4, OptionalLong.empty());
                b.synchronize();
            });
            assertEquals("one_hot: index -100 at position [0, 1] is outside [0, 4)", e.getMessage());
            var ignored = assertThrows(IndexOutOfBoundsException.class, () -> {
                b.checkIndex("cross_entropy", s, Layout.contiguous(new int[] {6}), 4, OptionalLong.of(-100));
                b.synchronize();
            });
            assertEquals("cross_entropy: index 4 at position [3] is outside [0, 4) and is not the ignore index -100", ignored.getMessage());
            Storage ints = b.upload(DType.INT32, new int[] {1, 7});
            assertThrows(IndexOutOfBoundsException.class, () -> {
                b.checkIndex("one_hot", ints, Layout.contiguous(new int[] {2}), 7, OptionalLong.empty());
                b.synchronize();
            });
        }
    }
}
