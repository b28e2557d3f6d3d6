package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one mask builder: values, alignment, and that it is made on the backend. */
class MasksTest {
    private static final float INF = Float.NEGATIVE_INFINITY;

    /** A backend that counts host uploads (the array form goes through the segment form): a mask must need none. */
    static final class CountingUploads extends ReferenceBackend {
        int uploads;

        @Override
        public Storage upload(DType dtype, MemorySegment source) {
            uploads++;
            return super.upload(dtype, source);
        }
    }

    @Test
    void theCausalMaskIsBottomRightAlignedWithMinusInfinityAbove() {
        ReferenceBackend be = new ReferenceBackend();
        assertArrayEquals(new float[] {0, INF, INF, 0, 0, INF, 0, 0, 0}, Masks.causal(be, 3, 3).toFloatArray());
        // two queries, the last two of four positions: each sees the whole past
        assertArrayEquals(new float[] {0, 0, 0, INF, 0, 0, 0, 0}, Masks.causal(be, 2, 4).toFloatArray());
        // more queries than keys: the first query sees nothing
        assertArrayEquals(new float[] {INF, INF, 0, INF, 0, 0}, Masks.causal(be, 3, 2).toFloatArray());
    }

    @Test
    void masksAreMadeOnTheBackendWithoutUploadingAHostArray() {
        CountingUploads be = new CountingUploads();
        Tensor causal = Masks.causal(be, 64, 80);
        Tensor tri = Masks.triangle(be, 5, 7, -1, false);
        assertEquals(0, be.uploads);
        assertTrue(causal.backend() == be && tri.backend() == be);
    }

    @Test
    void positionsAreCountedOnTheBackendAndRefuseMoreThanFloat32CountsExactly() {
        CountingUploads be = new CountingUploads();
        assertArrayEquals(new float[] {0, 1, 2, 3, 4}, Creation.positions(be, "test", 5, DType.FLOAT32).toFloatArray());
        Tensor ids = Creation.positions(be, "test", 4, DType.INT64);
        assertEquals(DType.INT64, ids.dtype());
        assertArrayEquals(new long[] {0, 1, 2, 3}, ids.toLongArray());
        assertEquals(0, Creation.positions(be, "test", 0, DType.FLOAT32).numel());
        assertEquals(0, be.uploads);
        var e = assertThrows(IllegalArgumentException.class, () -> Creation.positions(be, "grouped_matmul", (1 << 24) + 1, DType.FLOAT32));
        assertTrue(e.getMessage().contains("grouped_matmul") && e.getMessage().contains("16777217"), e.getMessage());
    }

    @Test
    void trilAndTriuKeepTheTriangleTheMaskBuilderDescribes() {
        Tensor x = Tensor.randn(new Generator(1), 4, 6);
        float[] xs = x.toFloatArray(), lower = x.tril(1).toFloatArray(), upper = x.triu(-2).toFloatArray();
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 6; j++) {
                assertEquals(j - i <= 1 ? xs[i * 6 + j] : 0f, lower[i * 6 + j], "tril(1) at " + i + "," + j);
                assertEquals(j - i >= -2 ? xs[i * 6 + j] : 0f, upper[i * 6 + j], "triu(-2) at " + i + "," + j);
            }
        }
    }

    @Test
    void keyPaddingIsZeroForTokensAndMinusInfinityForPaddingBroadcastOverHeadsAndQueries() {
        Tensor flags = Tensor.fromArray(new long[] {1, 1, 0, 1, 0, 0}, 2, 3);
        Tensor mask = Masks.keyPadding(flags);
        assertArrayEquals(new int[] {2, 1, 1, 3}, mask.shape());
        assertArrayEquals(new float[] {0, 0, INF, 0, INF, INF}, mask.toFloatArray());
        var e = assertThrows(IllegalArgumentException.class, () -> Masks.keyPadding(Tensor.zeros(2, 3, 1)));
        assertTrue(e.getMessage().contains("key_padding_mask") && e.getMessage().contains("[2, 3, 1]"), e.getMessage());
    }
}
