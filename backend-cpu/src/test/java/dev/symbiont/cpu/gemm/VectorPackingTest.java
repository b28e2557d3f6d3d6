package dev.symbiont.cpu.gemm;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The vector-transpose packing of row-major A blocks against its scalar twin, {@link GemmPacking#packA}. */
class VectorPackingTest {

    @Test
    void should_pack_row_major_blocks_exactly_like_the_scalar_packer() {
        Assumptions.assumeTrue(VectorPacking.SUPPORTED, "needs 16-lane vectors");
        Random rnd = new Random(7);
        int lda = 300;
        float[] a = new float[lda * 200 + 5];
        for (int i = 0; i < a.length; i++) a[i] = rnd.nextFloat();
        int mr = VectorGemmKernels.MR;
        for (int mc : new int[] {1, 7, 8, 9, 31, 128}) {
            for (int kc : new int[] {1, 15, 16, 17, 33, 256}) {
                for (int off : new int[] {0, 3}) {
                    int size = (mc + mr - 1) / mr * mr * kc;
                    float[] expected = new float[size], actual = new float[size];
                    Arrays.fill(actual, Float.NaN); // every slot must be written, padding included
                    GemmPacking.packA(a, off, lda, 1, 5, mc, 11, kc, mr, expected);
                    VectorPacking.packA(a, off, lda, 5, mc, 11, kc, actual);
                    assertArrayEquals(expected, actual, "mc=" + mc + " kc=" + kc + " offset=" + off);
                }
            }
        }
    }
}
