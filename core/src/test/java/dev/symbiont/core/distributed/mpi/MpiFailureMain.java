package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Communicators;
import dev.symbiont.core.distributed.Reduction;

/**
 * A two-rank job in which rank 1 fails after one successful collective, while rank 0 goes on to
 * the next: {@code halt} (rank 1 exits abruptly, {@code Runtime.halt(3)}), {@code abort} (rank 1
 * calls {@code abort("giving up", 5)}), {@code stall} (rank 1 stops calling collectives and
 * sleeps). And the contrast, {@code return}: every rank returns from {@code main} after the first
 * collective without closing the communicator, which the shutdown hook finalises.
 * {@link MpiFailureTest} checks the job ends, and how.
 */
public final class MpiFailureMain {
    public static void main(String[] args) throws InterruptedException {
        String scenario = args[0];
        Communicator world = Communicators.world();
        Tensor t = Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6, 7});
        world.allReduce(t, Reduction.SUM).await();
        System.out.println("rank " + world.rank() + ": first allReduce done");
        if (scenario.equals("return")) return;
        if (world.rank() == 1) {
            switch (scenario) {
                case "halt" -> Runtime.getRuntime().halt(3);
                case "abort" -> world.abort("giving up", 5);
                case "stall" -> Thread.sleep(600_000);
                default -> throw new IllegalArgumentException("unknown scenario " + scenario);
            }
        }
        world.allReduce(t, Reduction.SUM).await();
        System.out.println("rank " + world.rank() + ": second allReduce returned, which it must not without rank 1");
        world.close();
    }
}
