package dev.symbiont.cpu.gemm;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static dev.symbiont.cpu.gemm.VectorGemmKernels.MR;
import static dev.symbiont.cpu.gemm.VectorGemmKernels.NR;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** Each vector packing of {@link VectorPacking} against its scalar twin in {@link GemmPacking}. */
class VectorPackingTest {

    private static final int[] ROWS = {1, 3, 4, 5, 7, 8, 9, 31, 128};
    private static final int[] DEPTHS = {1, 7, 8, 9, 15, 16, 17, 33, 256};

    @Test
    void should_pack_row_major_blocks_exactly_like_the_scalar_packer() {
        Assumptions.assumeTrue(VectorPacking.TRANSPOSES, "needs a transpose for this tile and vector width");
        float[] a = random(300 * 200 + 5, new Random(7));
        for (int mc : ROWS) {
            for (int kc : DEPTHS) {
                for (int off : new int[] {0, 3}) {
                    int at = 7 * off; // where the panels start in the destination (a rectangle's kept blocks)
                    float[] expected = nans(mc, kc, at), actual = nans(mc, kc, at);
                    GemmPacking.packA(a, off, 300, 1, 5, mc, 11, kc, MR, expected, at);
                    VectorPacking.packA(a, off, 300, 5, mc, 11, kc, actual, at);
                    assertArrayEquals(expected, actual, "mc=" + mc + " kc=" + kc + " offset=" + off);
                }
            }
        }
    }

    @Test
    void should_pack_transposed_blocks_exactly_like_the_scalar_packer_for_every_leading_dimension() {
        Random rnd = new Random(8);
        for (int mc : ROWS) {
            // the leading dimension (A's column stride) is the block's rows, a few more, or much more
            for (int lda : new int[] {mc + 2, mc + 5, mc + 13, 517}) {
                for (int kc : DEPTHS) {
                    int off = rnd.nextInt(4), at = rnd.nextInt(3) * 5;
                    float[] a = random(off + 2 + (11 + kc) * lda + mc, rnd);
                    float[] expected = nans(mc, kc, at), actual = nans(mc, kc, at);
                    GemmPacking.packA(a, off, 1, lda, 2, mc, 11, kc, MR, expected, at);
                    VectorPacking.packATransposed(a, off, lda, 2, mc, 11, kc, actual, at);
                    assertArrayEquals(expected, actual, "mc=" + mc + " lda=" + lda + " kc=" + kc + " offset=" + off);
                }
            }
        }
    }

    @Test
    void should_pack_row_major_b_panels_exactly_like_the_scalar_packer() {
        Random rnd = new Random(9);
        int ldb = 3 * NR + 7;
        float[] b = random(40 * ldb + 3, rnd);
        for (int nc : new int[] {1, NR - 1, NR, NR + 1, 2 * NR + 3, 3 * NR}) {
            int panels = (nc + NR - 1) / NR;
            for (int kc : new int[] {1, 5, 17}) {
                for (int q0 = 0; q0 < panels; q0++) { // a range of panels, as a caller may pack part of a block
                    float[] expected = new float[panels * NR * kc], actual = new float[panels * NR * kc];
                    Arrays.fill(actual, 0, q0 * NR * kc, 0f);
                    Arrays.fill(actual, q0 * NR * kc, actual.length, Float.NaN);
                    GemmPacking.packB(b, 3, ldb, 1, 2, kc, 5, nc, NR, q0, panels, expected, 0);
                    VectorPacking.packB(b, 3, ldb, 2, kc, 5, nc, q0, panels, actual, 0);
                    assertArrayEquals(expected, actual, "nc=" + nc + " kc=" + kc + " panels from " + q0);
                }
            }
        }
    }

    @Test
    void should_pack_column_major_b_panels_exactly_like_the_scalar_packer() {
        Assumptions.assumeTrue(VectorPacking.TRANSPOSES, "needs a transpose for this tile and vector width");
        Random rnd = new Random(10);
        // partial panels of 1, 7 and 24 columns, 3 groups of eight + 7, and 19 beyond full panels
        for (int nc : new int[] {1, 7, 24, NR - 1, NR, NR + 1, NR + 19, 2 * NR + 3, 3 * NR}) {
            int panels = (nc + NR - 1) / NR;
            // the leading dimension (B's column stride) is the block's depth, a few more, or much more
            for (int kc : new int[] {1, 5, 15, 16, 17, 33, 112, 256}) {
                for (int ldb : new int[] {kc + 2, kc + 9, 517}) {
                    float[] b = random(3 + 2 + (5 + nc) * ldb + kc, rnd);
                    for (int q0 : new int[] {0, panels - 1}) { // all panels, or the last one alone
                        float[] expected = new float[panels * NR * kc], actual = new float[panels * NR * kc];
                        Arrays.fill(actual, q0 * NR * kc, actual.length, Float.NaN);
                        GemmPacking.packB(b, 3, 1, ldb, 2, kc, 5, nc, NR, q0, panels, expected, 0);
                        VectorPacking.packBTransposed(b, 3, ldb, 2, kc, 5, nc, q0, panels, actual, 0);
                        assertArrayEquals(expected, actual, "nc=" + nc + " kc=" + kc + " ldb=" + ldb + " panels from " + q0);
                    }
                }
            }
        }
    }

    @Test
    void should_pack_two_operands_side_by_side_in_every_layout_as_the_definition_says() {
        int L = VectorGemmKernels.L;
        Random rnd = new Random(9);
        float[] b1 = random(400 * 300, rnd), b2 = random(400 * 300, rnd);
        // {row stride, column stride}: row-major, column-major (a Linear's weight seen as (in, out)), strided
        int[][] layouts = {{300, 1}, {1, 400}, {2, 500}};
        for (int[] l1 : layouts) {
            for (int[] l2 : layouts) {
                for (int nc : new int[] {1, L - 3, L, 2 * L + 5, 3 * L}) {
                    for (int kc : new int[] {1, 15, 16, 33, 64}) {
                        int panels = (nc + L - 1) / L;
                        float[] actual = new float[panels * NR * kc];
                        Arrays.fill(actual, Float.NaN);
                        VectorPacking.packBPaired(b1, 3, l1[0], l1[1], b2, 7, l2[0], l2[1], 5, kc, 11, nc, actual);
                        float[] expected = new float[actual.length];
                        for (int q = 0; q < panels; q++) {
                            for (int p = 0; p < kc; p++) {
                                for (int j = 0; j < L; j++) {
                                    int col = 11 + q * L + j, at = q * NR * kc + p * NR + j;
                                    boolean inside = q * L + j < nc;
                                    expected[at] = inside ? b1[3 + (5 + p) * l1[0] + col * l1[1]] : 0f;
                                    expected[at + L] = inside ? b2[7 + (5 + p) * l2[0] + col * l2[1]] : 0f;
                                }
                            }
                        }
                        assertArrayEquals(expected, actual, "layouts " + Arrays.toString(l1) + " / " + Arrays.toString(l2)
                                + ", nc=" + nc + " kc=" + kc);
                    }
                }
            }
        }
    }

    private static float[] panels(int mc, int kc) {
        return new float[(mc + MR - 1) / MR * MR * kc];
    }

    /** NaNs for panels that start at {@code at}: every slot from there must be written (padding included), and none before. */
    private static float[] nans(int mc, int kc, int at) {
        float[] x = new float[at + panels(mc, kc).length];
        Arrays.fill(x, Float.NaN);
        return x;
    }

    private static float[] random(int size, Random rnd) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) x[i] = rnd.nextFloat();
        return x;
    }
}
