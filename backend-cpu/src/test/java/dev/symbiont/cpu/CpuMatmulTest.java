package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.cpu.gemm.GemmPath;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.upload;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Batched matmul of the CPU backend, on both GEMM paths, against the reference's double-accumulating loop. */
class CpuMatmulTest {

    private static void compare(CpuBackend cpu, float[] a, Layout al, float[] b, Layout bl) {
        Storage r = REF.matmul(upload(REF, a), al, upload(REF, b), bl);
        Storage c = cpu.matmul(upload(cpu, a), al, upload(cpu, b), bl);
        int rank = al.rank();
        int[] shape = al.shape().clone();
        shape[rank - 1] = bl.size(rank - 1);
        int k = al.size(rank - 1);
        // float accumulation over k products of values in [-1, 1]
        assertClose(cpu.gemmPath() + " " + al + " x " + bl, read(REF, r, shape), read(cpu, c, shape),
                1e-5, 2e-6 * Math.sqrt(k + 1));
    }

    private static float[] data(long seed, Layout l) {
        return random(seed, Math.max(l.maxIndex() + 1, 1), 1f);
    }

    private static void compare(CpuBackend cpu, Layout al, Layout bl) {
        compare(cpu, data(al.numel() + 1, al), al, data(bl.numel() + 2, bl), bl);
    }

    @ParameterizedTest
    @EnumSource(GemmPath.class)
    void multipliesMatricesOfAwkwardSizes(GemmPath path) {
        CpuBackend cpu = new CpuBackend(path);
        int[][] mkn = {{1, 1, 1}, {7, 13, 31}, {31, 7, 13}, {1, 207, 1}, {13, 4098, 7}, {130, 70, 129}, {3, 0, 5}};
        for (int[] s : mkn) compare(cpu, Layout.contiguous(s[0], s[1]), Layout.contiguous(s[1], s[2]));
    }

    @ParameterizedTest
    @EnumSource(GemmPath.class)
    void takesTransposedOperandsAsStrides(GemmPath path) {
        CpuBackend cpu = new CpuBackend(path);
        int m = 13, k = 31, n = 7;
        Layout at = new Layout(new int[] {m, k}, new int[] {1, m}, 0);          // a stored (k, m)
        Layout bt = new Layout(new int[] {k, n}, new int[] {1, k}, 3);          // b stored (n, k), offset
        compare(cpu, at, Layout.contiguous(k, n));
        compare(cpu, Layout.contiguous(m, k), bt);
        compare(cpu, at, bt);
    }

    @ParameterizedTest
    @EnumSource(GemmPath.class)
    void batchesOverBroadcastAndUnmergeableBatchDims(GemmPath path) {
        CpuBackend cpu = new CpuBackend(path);
        int m = 5, k = 9, n = 7;
        // (4, m, k) x shared weight (k, n) expanded to (4, k, n)
        compare(cpu, Layout.contiguous(4, m, k), new Layout(new int[] {4, k, n}, new int[] {0, n, 1}, 0));
        // (2, 3) batches, contiguous on both sides: merges into one batch of 6
        compare(cpu, Layout.contiguous(2, 3, m, k), Layout.contiguous(2, 3, k, n));
        // (2, 3) batches where b is (2, 1, k, n) broadcast over the 3: does not merge
        compare(cpu, Layout.contiguous(2, 3, m, k), new Layout(new int[] {2, 3, k, n}, new int[] {k * n, 0, n, 1}, 0));
        // attention-like: q (B, T, H, D) permuted to (B, H, T, D) times kᵀ
        int bsz = 2, t = 6, h = 3, d = 4;
        Layout q = new Layout(new int[] {bsz, h, t, d}, new int[] {t * h * d, d, h * d, 1}, 0);
        Layout kt = new Layout(new int[] {bsz, h, d, t}, new int[] {t * h * d, d, 1, h * d}, 0);
        compare(cpu, q, kt);
        // many small matrices: parallel over the batch
        compare(cpu, Layout.contiguous(64, 8, 16), Layout.contiguous(64, 16, 8));
        // an empty batch
        compare(cpu, Layout.contiguous(0, m, k), Layout.contiguous(0, k, n));
    }

    @ParameterizedTest
    @EnumSource(GemmPath.class)
    void rejectsShapesThatDoNotMultiply(GemmPath path) {
        CpuBackend cpu = new CpuBackend(path);
        var e = assertThrows(IllegalArgumentException.class, () -> cpu.matmul(upload(cpu, new float[6]), Layout.contiguous(2, 3),
                upload(cpu, new float[8]), Layout.contiguous(4, 2)));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("matmul"), e.getMessage());
    }
}
