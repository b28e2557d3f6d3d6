package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.Communicators;
import dev.symbiont.core.distributed.Reduction;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One rank of {@link MpiDirectCallsTest}'s job: a direct in-place float32 sum of 5 values
 * inside a segment of 8, a barrier, a tensor all-reduce through the communicator in between
 * (the two paths share one MPI), a heap segment refused, and a direct call after close refused.
 * Prints {@code rank R of N: direct calls agree} when every check held; otherwise the first
 * failure ends the job.
 */
public final class MpiDirectCallsMain {
    static String agreed(int rank, int size) { return "rank " + rank + " of " + size + ": direct calls agree"; }

    public static void main(String[] args) {
        MpiCommunicator world = (MpiCommunicator) Communicators.world();
        int rank = world.rank(), size = world.size();
        MpiDirectCalls direct = MpiDirectCalls.of(world);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment values = arena.allocate(8 * Float.BYTES);
            for (int i = 0; i < 8; i++) values.setAtIndex(ValueLayout.JAVA_FLOAT, i, (rank + 1) * (i + 1));
            direct.allReduceSumInPlace(values, 5);
            Tensor t = Tensor.fromArray(new float[] {rank, 1});
            world.allReduce(t, Reduction.SUM).await();
            direct.barrier();
            float ranks = size * (size + 1) / 2f;
            for (int i = 0; i < 8; i++) {
                float expected = i < 5 ? ranks * (i + 1) : (rank + 1) * (i + 1);
                check(values.getAtIndex(ValueLayout.JAVA_FLOAT, i) == expected,
                        "element " + i + " is " + values.getAtIndex(ValueLayout.JAVA_FLOAT, i) + ", expected " + expected);
            }
            check(t.toFloatArray()[0] == size * (size - 1) / 2f && t.toFloatArray()[1] == size, "the tensor all-reduce between direct calls");
            String refused = message(() -> direct.allReduceSumInPlace(MemorySegment.ofArray(new float[4]), 4));
            check(refused.contains("allReduceSumInPlace") && refused.contains("count 4") && refused.contains("heap"), "heap segment refused: " + refused);
            world.close();
            String closed = message(direct::barrier);
            check(closed.contains("MpiDirectCalls.barrier") && closed.contains("closed"), "a direct call after close refused: " + closed);
        }
        System.out.println(agreed(rank, size));
    }

    private static String message(Runnable call) {
        try {
            call.run();
            return "no exception";
        } catch (IllegalArgumentException | IllegalStateException e) {
            return e.getMessage();
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("rank check failed: " + what);
            System.exit(1);
        }
    }
}
