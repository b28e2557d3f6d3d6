package dev.symbiont.core.distributed;

/**
 * "The ranks" a {@link CommunicatorConformance} runs its checks on: threads of one JVM
 * ({@link LocalRanks}), or (in the MPI test's main) the processes mpirun started.
 */
public interface Ranks {
    /** How many ranks run each check. */
    int size();

    /** Runs {@code check} on every rank at once and returns when all are done; the first rank's failure is rethrown. */
    void run(CollectiveCheck check) throws Exception;
}
