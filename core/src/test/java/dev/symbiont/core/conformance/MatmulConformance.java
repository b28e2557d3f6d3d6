package dev.symbiont.core.conformance;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** matmul in every torch.matmul form, with transposed operands and tile-edge shapes, against the reference. */
public abstract class MatmulConformance extends ConformanceBase {

    @ParameterizedTest(name = "({0}x{1}) @ ({1}x{2})")
    @CsvSource({"1,1,1", "1,7,1", "3,1,5", "7,13,3", "17,33,9", "16,16,16", "31,32,33", "64,65,66", "65,64,63", "1,129,33"})
    void matmulMatchesReferenceAroundTileEdges(int m, int k, int n) {
        assertMatchesReference("matmul " + m + "x" + k + "x" + n, in -> in.randn(m, k).matmul(in.randn(k, n)),
                matmulTolerance(k), matmulTolerance(Math.max(m, n)));
    }

    @ParameterizedTest(name = "transposeA={0} transposeB={1}")
    @CsvSource({"false,true", "true,false", "true,true"})
    void matmulMatchesReferenceWithTransposedOperands(boolean ta, boolean tb) {
        int m = 17, k = 33, n = 9;
        assertMatchesReference("matmul transposed", in -> {
            Tensor a = ta ? in.transposed(m, k) : in.randn(m, k);
            Tensor b = tb ? in.transposed(k, n) : in.randn(k, n);
            return a.matmul(b);
        }, matmulTolerance(k), matmulTolerance(33));
    }

    @Test
    void matmulMatchesReferenceOnStridedAndExpandedOperands() {
        assertMatchesReference("matmul strided", in -> in.strided(9, 13).matmul(in.strided(13, 7)), matmulTolerance(13));
        assertMatchesReference("matmul permuted batch", in -> in.permuted(3, 5, 7).matmul(in.expanded(3, 7, 4)), matmulTolerance(7));
    }

    @Test
    void batchedMatmulMatchesReference() {
        assertMatchesReference("batched", in -> in.randn(4, 7, 13).matmul(in.randn(4, 13, 5)), matmulTolerance(13));
        assertMatchesReference("batched rank 4", in -> in.randn(2, 3, 5, 6).matmul(in.transposed(2, 3, 6, 4)), matmulTolerance(6));
    }

    @Test
    void broadcastBatchMatmulMatchesReferenceAndSumsGradientsOverTheBroadcastDims() {
        assertMatchesReference("broadcast rhs", in -> in.randn(3, 4, 7, 5).matmul(in.randn(5, 6)), matmulTolerance(5), matmulTolerance(84));
        assertMatchesReference("broadcast both", in -> in.randn(3, 1, 7, 5).matmul(in.randn(4, 5, 6)), matmulTolerance(5), matmulTolerance(28));
        assertMatchesReference("broadcast lhs", in -> in.randn(7, 5).matmul(in.randn(2, 5, 3)), matmulTolerance(5), matmulTolerance(6));
    }

    @Test
    void matmulWithOneDimensionalOperandsMatchesReference() {
        assertMatchesReference("vector dot", in -> in.randn(33).matmul(in.randn(33)), matmulTolerance(33));
        assertMatchesReference("vector @ matrix", in -> in.randn(13).matmul(in.randn(13, 7)), matmulTolerance(13));
        assertMatchesReference("matrix @ vector", in -> in.randn(7, 13).matmul(in.randn(13)), matmulTolerance(13));
        assertMatchesReference("batched @ vector", in -> in.randn(3, 7, 13).matmul(in.strided(13)), matmulTolerance(13), matmulTolerance(21));
        assertMatchesReference("vector @ batched", in -> in.randn(13).matmul(in.randn(3, 13, 7)), matmulTolerance(13), matmulTolerance(21));
    }

    @Test
    void matmulWithZeroInnerSizeGivesZerosLikeReference() {
        assertMatchesReference("k=0", in -> in.randn(3, 0).matmul(in.randn(0, 4)), EXACT);
    }

    @Test
    void largeMatmulMatchesReference() {
        assertMatchesReference("130x257x200", in -> in.randn(130, 257).matmul(in.transposed(257, 200)),
                matmulTolerance(257), matmulTolerance(200));
    }
}
