package dev.symbiont.bench;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Communicators;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.core.distributed.mpi.MpiCommunicator;
import dev.symbiont.core.distributed.mpi.MpiDirectCalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * All-reduce latency and bandwidth from Java, timed as {@code benchmarks/mpi/allreduce.c} times
 * it from C: float32 SUM in place, 8 B … 64 MiB doubling; per size a warm-up of n/10 + 1 calls,
 * then {@value #ROUNDS} rounds of (barrier, n calls, the slowest rank's mean), reporting the
 * median round (n = 1000 up to 64 KiB, 100 up to 1 MiB, 10 above); before the first size, {@value #JIT_WARMUP} untimed calls so the JIT has compiled
 * the Java side. Two rows per size:
 * <ul>
 * <li>{@code impl=ffm}: {@code MPI_Allreduce} through the {@code java.lang.foreign} downcall on an
 * off-heap segment, on the calling thread ({@link MpiDirectCalls}): the binding's own cost;
 * <li>{@code impl=tensor}: {@code MpiCommunicator.allReduce(tensor, SUM).await()}, what a
 * training step pays: the copy into off-heap staging, the hand-off to the MPI thread and back,
 * the copy out.
 * </ul>
 * Rows read {@code allreduce impl=ffm ranks=N bytes=B us=… gbps=…} (GB/s = bytes / time), as C's.
 *
 * <p>Run under mpirun: {@code benchmarks/mpi-allreduce.sh} (C and Java in one run, with the ratios)
 * or {@code benchmarks/mpi-netns.sh} (two network namespaces). Argument: the largest size in
 * bytes (default 64 MiB).
 */
public final class MpiAllReduceReport {
    /** Calls of each path before the sweep, so the timed ones run compiled code (C2 compiles after ~10,000). */
    static final int JIT_WARMUP = 20_000;
    /** Timed rounds per size, as allreduce.c's ROUNDS: the median round is reported. */
    static final int ROUNDS = 3;

    private MpiAllReduceReport() {}

    public static void main(String[] args) {
        long max = args.length > 0 ? Long.parseLong(args[0]) : 64L << 20;
        Communicator world = Communicators.world();
        if (!(world instanceof MpiCommunicator mpi)) {
            System.err.println("MpiAllReduceReport: run it under mpirun (benchmarks/mpi-allreduce.sh); this process is a group of "
                    + world.size() + " (" + world.name() + ")");
            System.exit(2);
            return;
        }
        MpiDirectCalls direct = MpiDirectCalls.of(mpi);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(max, 64);
            buffer.fill((byte) 0);
            for (long i = 0; i < max / Float.BYTES; i++) buffer.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1f);
            // The JIT's warm-up, which C does not need: both paths compiled before the first timed size.
            Tensor small = Tensor.ones(2);
            for (int i = 0; i < JIT_WARMUP; i++) direct.allReduceSumInPlace(buffer, 2);
            for (int i = 0; i < JIT_WARMUP / 4; i++) mpi.allReduce(small, Reduction.SUM).await();
            for (long bytes = 8; bytes <= max; bytes *= 2) {
                int count = (int) (bytes / Float.BYTES), n = iterations(bytes);
                double ffm = slowestMean(mpi, direct, n, () -> direct.allReduceSumInPlace(buffer, count));
                print(mpi, "ffm", bytes, ffm);
                Tensor t = Tensor.ones(count);
                double tensor = slowestMean(mpi, direct, n, () -> mpi.allReduce(t, Reduction.SUM).await());
                print(mpi, "tensor", bytes, tensor);
            }
        }
        mpi.close();
    }

    /** allreduce.c's iteration counts: enough calls that small sizes are timed over milliseconds. */
    static int iterations(long bytes) {
        if (bytes <= 65536) return 1000;
        if (bytes <= 1 << 20) return 100;
        return 10;
    }

    /** Warm-up, then {@link #ROUNDS} rounds of (barrier, {@code n} timed calls, the largest of the ranks' mean seconds per call); the median round. */
    private static double slowestMean(MpiCommunicator world, MpiDirectCalls direct, int n, Runnable call) {
        for (int i = 0; i < n / 10 + 1; i++) call.run();
        double[] rounds = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            direct.barrier();
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) call.run();
            double[] mine = {(System.nanoTime() - start) / 1e9 / n};
            world.allReduce(mine, Reduction.MAX);
            rounds[r] = mine[0];
        }
        return BestOfThree.median(rounds);
    }

    private static void print(Communicator world, String impl, long bytes, double seconds) {
        if (world.rank() != 0) return;
        System.out.printf(Locale.ROOT, "allreduce impl=%s ranks=%d bytes=%d us=%.3f gbps=%.3f%n",
                impl, world.size(), bytes, seconds * 1e6, bytes / seconds / 1e9);
    }
}
