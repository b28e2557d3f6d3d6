package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.distributed.CollectiveCheck;
import dev.symbiont.core.distributed.CollectiveChecks;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Communicators;

import java.nio.file.Path;

/**
 * One rank of the MPI conformance job ({@link MpiCommunicatorTest}): runs every
 * {@link CollectiveChecks} check on {@link Communicators#world()}, then closes it (twice) and
 * checks a collective is refused afterwards, and prints {@code rank R of N: K checks passed}.
 * The first failing check aborts the job with its message, so no rank is left waiting at a
 * collective the failed one will never reach.
 *
 * <p>Argument: a directory every rank sees, for the checks that need one.
 */
public final class MpiConformanceMain {
    /** The line each rank prints when every check passed: {@code rank R of N: K checks passed}. */
    static String passed(int rank, int size, int checks) { return "rank " + rank + " of " + size + ": " + checks + " checks passed"; }

    public static void main(String[] args) {
        Path shared = Path.of(args[0]);
        Communicator world = Communicators.world();
        if (!world.name().equals("mpi") || Communicators.world() != world) {
            world.abort("Communicators.world() under mpirun is " + world.name() + ", not the same MPI communicator on every call", 2);
        }
        int rank = world.rank(), size = world.size(), passed = 0;
        for (CollectiveCheck check : CollectiveChecks.all()) {
            try {
                check.body().run(world, shared.resolve("check-" + passed));
                passed++;
            } catch (Throwable t) {
                t.printStackTrace();
                world.abort(check.name() + " failed: " + t, 1);
            }
        }
        world.close();
        world.close();
        try {
            world.barrier();
            System.out.println("rank " + rank + ": a barrier after close() did not fail");
            System.exit(1);
        } catch (IllegalStateException e) {
            if (!e.getMessage().contains("barrier") || !e.getMessage().contains("closed")) {
                System.out.println("rank " + rank + ": a barrier after close() failed with '" + e.getMessage() + "'");
                System.exit(1);
            }
        }
        System.out.println(passed(rank, size, passed));
    }
}
