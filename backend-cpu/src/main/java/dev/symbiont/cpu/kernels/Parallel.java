package dev.symbiont.cpu.kernels;

import dev.symbiont.cpu.CpuThreads;

/**
 * Splits a range of work items over {@link CpuThreads#team()}, the threads the backend
 * shares. Work below the grain runs on the calling thread, so small tensors never pay for a
 * parallel job; larger work is cut into at most two chunks per thread, each at least a grain.
 *
 * <p>Chunk boundaries depend only on {@code n}, the grain and the team's size, so kernels that
 * combine per-chunk partial results (norm weight gradients) are deterministic.
 */
public final class Parallel {
    private Parallel() {}

    /** Elements below which an elementwise kernel stays on one thread. */
    public static final int ELEMENT_GRAIN = 32 * 1024;

    /** Work on items {@code [from, to)}. */
    @FunctionalInterface
    public interface RangeBody {
        void run(int from, int to);
    }

    /** Work on items {@code [from, to)}, the {@code chunk}-th of {@link #chunks} chunks. */
    @FunctionalInterface
    public interface ChunkBody {
        void run(int chunk, int from, int to);
    }

    /** The grain, in rows, that keeps each chunk of a row kernel above {@link #ELEMENT_GRAIN} elements. */
    public static int rowGrain(int cols) {
        return Math.max(1, ELEMENT_GRAIN / Math.max(cols, 1));
    }

    /** How many chunks {@link #forChunks} cuts {@code n} items into (1 when it stays on this thread). */
    public static int chunks(int n, int grain) {
        int threads = CpuThreads.parallelism();
        if (threads <= 1 || n <= grain) return 1;
        long byGrain = ((long) n + grain - 1) / grain;
        return (int) Math.max(1, Math.min(byGrain, 2L * threads));
    }

    /** Runs {@code body} over {@code [0, n)}, in parallel when {@code n > grain}. */
    public static void forRange(int n, int grain, RangeBody body) {
        forChunks(n, grain, (chunk, from, to) -> body.run(from, to));
    }

    /** Runs {@code body} once per chunk of {@code [0, n)}; chunk {@code c} covers an even share. */
    public static void forChunks(int n, int grain, ChunkBody body) {
        if (n <= 0) return;
        int chunks = chunks(n, grain);
        if (chunks == 1) {
            body.run(0, 0, n);
            return;
        }
        CpuThreads.team().run(chunks, c -> body.run(c, start(n, chunks, c), start(n, chunks, c + 1)));
    }

    /** Start of chunk {@code c} when {@code n} items are cut into {@code chunks} even shares. */
    static int start(int n, int chunks, int c) {
        return (int) ((long) n * c / chunks);
    }
}
