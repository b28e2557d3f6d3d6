package dev.symbiont.cpu.fused;

import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmTiles;
import dev.symbiont.cpu.kernels.Parallel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The GEMMs of one grouped call as the items of one parallel computation: largest first,
 * each of the pool's threads taking the next as it finishes one. Each item writes only its
 * own block of one output, so the result does not depend on the order. On the vector GEMM an
 * item is a tile ({@link GemmTiles}); on another GEMM it is a whole product.
 */
final class GroupedWork {
    /** Multiply-adds below which the items run on the calling thread (the vector GEMM's own threshold, 144³). */
    private static final long SEQUENTIAL_WORK = 144L * 144 * 144;

    private final Gemm gemm;
    private final boolean tiled;
    private final List<Runnable> items = new ArrayList<>();
    private final List<Long> sizes = new ArrayList<>();

    GroupedWork(Gemm gemm, boolean tiled) {
        this.gemm = gemm;
        this.tiled = tiled;
    }

    /** C (m × n) = A (m × k) · B (k × n), operands as in {@link Gemm#sgemm}: its tiles, or one item. */
    void sgemm(int m, int n, int k, float[] a, int aOff, int aRs, int aCs, float[] b, int bOff, int bRs, int bCs,
               float[] c, int cOff, int ldc) {
        if (!tiled) {
            add((long) m * n * k, () -> gemm.sgemm(m, n, k, a, aOff, aRs, aCs, b, bOff, bRs, bCs, c, cOff, ldc));
            return;
        }
        GemmTiles tiles = GemmTiles.of(m, n, k, a, aOff, aRs, aCs, b, bOff, bRs, bCs, c, cOff, ldc, false);
        for (int t = 0; t < tiles.count(); t++) {
            int tile = t;
            add(tiles.work(t), () -> tiles.run(tile));
        }
    }

    /**
     * C (m × n) = A1 (m × k) · B1 + A2 (m × k) · B2 without a second output: each tile of C is
     * written by the first product and added to by the second on one thread, in that order.
     * Only on the vector GEMM's tiles (its one caller, grouped_swiglu's backward, runs only there).
     */
    void sgemmSum(int m, int n, int k, float[] a1, int a1Off, int a1Rs, int a1Cs, float[] b1, int b1Off, int b1Rs, int b1Cs,
                  float[] a2, int a2Off, int a2Rs, int a2Cs, float[] b2, int b2Off, int b2Rs, int b2Cs,
                  float[] c, int cOff, int ldc) {
        if (!tiled) throw new IllegalStateException("GroupedWork.sgemmSum: needs the vector GEMM's tiles, not " + gemm.path());
        GemmTiles first = GemmTiles.of(m, n, k, a1, a1Off, a1Rs, a1Cs, b1, b1Off, b1Rs, b1Cs, c, cOff, ldc, false);
        GemmTiles second = GemmTiles.of(m, n, k, a2, a2Off, a2Rs, a2Cs, b2, b2Off, b2Rs, b2Cs, c, cOff, ldc, true);
        for (int t = 0; t < first.count(); t++) { // the same tiles: one shape
            int tile = t;
            add(2 * first.work(t), () -> {
                first.run(tile);
                second.run(tile);
            });
        }
    }

    /** Any other item, with its multiply-adds for the schedule. */
    void add(long work, Runnable item) {
        items.add(item);
        sizes.add(work);
    }

    void run() {
        Integer[] order = new Integer[items.size()];
        long total = 0;
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
            total += sizes.get(i);
        }
        Arrays.sort(order, (x, y) -> Long.compare(sizes.get(y), sizes.get(x))); // stable: ties keep expert order
        if (order.length <= 1 || total < SEQUENTIAL_WORK) {
            for (Integer i : order) items.get(i).run();
            return;
        }
        AtomicInteger next = new AtomicInteger();
        Parallel.forRange(Math.min(order.length, CpuThreads.parallelism()), 1, (from, to) -> {
            for (int i = next.getAndIncrement(); i < order.length; i = next.getAndIncrement()) items.get(order[i]).run();
        });
    }
}
