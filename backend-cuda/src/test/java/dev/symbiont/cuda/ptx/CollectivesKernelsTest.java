package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.ModuleImage;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The interpreter on nvcc's PTX for warp collectives, atomics and dynamic shared memory
 * ({@code collectives.cu}): an argmax with 64-bit indices through xor shuffles, a warp scan through
 * up and idx shuffles, a CAS-loop float max, int min, exchange, double atomicAdd and votes over a
 * partial last warp.
 */
class CollectivesKernelsTest {
    private final PtxHarness h = new PtxHarness();
    private final Driver.Module module = h.driver.load(new ModuleImage("collectives", NvccKernelsTest.resource("collectives.ptx"), new byte[0]));

    private void launch(String name, int blocks, int threads, int sharedBytes, KernelArgs args) {
        h.driver.launch(h.driver.function(module, name), Dim3.of(blocks), Dim3.of(threads), sharedBytes, h.stream, args);
    }

    @Test
    void argmaxThroughShufflesAndDynamicSharedMemoryTiesToTheLowerIndex() {
        int n = 1000, blocks = 2, threads = 128;
        Random random = new Random(9);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = random.nextInt(20); // many ties
        long in = h.floats(x), out = h.longs(new long[blocks]);
        launch("argmax_f32", blocks, threads, 32 * 4 + 32 * 8, KernelArgs.of().pointer(out).pointer(in).i64(n));
        long[] expected = new long[blocks];
        java.util.Arrays.fill(expected, -1);
        for (int i = 0; i < n; i++) {
            int b = i / threads % blocks;
            if (expected[b] < 0 || x[i] > x[(int) expected[b]]) expected[b] = i;
        }
        assertArrayEquals(expected, h.longs(out, blocks));
    }

    @Test
    void aWarpScanThroughUpAndIndexShufflesPrefixSumsEachWarp() {
        int n = 200, threads = 64, blocks = 4;
        int[] x = new int[n];
        for (int i = 0; i < n; i++) x[i] = i % 7 - 3;
        long in = h.ints(x), scan = h.ints(new int[n]), totals = h.ints(new int[blocks]);
        launch("warp_scan_i32", blocks, threads, 0, KernelArgs.of().pointer(scan).pointer(totals).pointer(in).i32(n));
        int[] expectedScan = new int[n], expectedTotals = new int[blocks];
        for (int i = 0; i < n; i++) {
            expectedScan[i] = x[i] + (i % 32 == 0 ? 0 : expectedScan[i - 1]);
            expectedTotals[i / threads] += x[i];
        }
        assertArrayEquals(expectedScan, h.ints(scan, n));
        assertArrayEquals(expectedTotals, h.ints(totals, blocks));
    }

    @Test
    void atomicsAndVotesOverAPartialLastWarp() {
        int n = 150, threads = 64, blocks = 3, warps = 5;
        Random random = new Random(4);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (random.nextInt(41) - 20) / 4f; // quarters: every sum order is exact
        long in = h.floats(x), fmax = h.floats(Float.NEGATIVE_INFINITY), imin = h.ints(Integer.MAX_VALUE), last = h.ints(0);
        long dsum = h.longs(0), ballots = h.ints(new int[warps]), counts = h.ints(new int[3 * warps]);
        launch("atomics_and_votes", blocks, threads, 0,
                KernelArgs.of().pointer(fmax).pointer(imin).pointer(last).pointer(dsum).pointer(ballots).pointer(counts).pointer(in).i32(n));
        float max = Float.NEGATIVE_INFINITY;
        int min = Integer.MAX_VALUE;
        double sum = 0;
        int[] expectedBallots = new int[warps], expectedCounts = new int[3 * warps];
        for (int w = 0; w < warps; w++) expectedCounts[3 * w + 1] = 1;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, x[i]);
            min = Math.min(min, (int) (x[i] * 100f));
            sum += x[i];
            int w = i / 32;
            if (x[i] > 0) {
                expectedBallots[w] |= 1 << (i % 32);
                expectedCounts[3 * w]++;
            }
            if (x[i] > 2.5f) expectedCounts[3 * w + 2] = 1;
        }
        assertEquals(max, h.floats(fmax, 1)[0]);
        assertEquals(min, h.ints(imin, 1)[0]);
        assertEquals(1, h.ints(last, 1)[0]);
        double[] s = new double[1];
        h.driver.copyToHost(MemorySegment.ofArray(s), dsum, h.stream);
        assertEquals(sum, s[0], 0);
        assertArrayEquals(expectedBallots, h.ints(ballots, warps));
        assertArrayEquals(expectedCounts, h.ints(counts, 3 * warps));
    }
}
