package dev.symbiont.core.distributed.mpi;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MpiDirectCalls} on a two-rank mpirun job ({@link MpiDirectCallsMain}): the direct sum
 * reduces exactly the first {@code count} values, interleaves with the communicator's own
 * collectives, and refuses heap memory and a closed communicator.
 */
class MpiDirectCallsTest {
    @Test
    void directAllReduceAndBarrierAgreeWithTheCommunicatorOnEveryRank() throws Exception {
        MpiJobs.Outcome job = MpiJobs.run(2, List.of("-D" + MpiCommunicator.TIMEOUT_PROPERTY + "=PT60S"),
                MpiDirectCallsMain.class, List.of(), Duration.ofSeconds(120));
        assertFalse(job.timedOut(), job.describe());
        assertEquals(0, job.exitCode(), job.describe());
        for (int r = 0; r < 2; r++) assertTrue(job.output().contains(MpiDirectCallsMain.agreed(r, 2)), job.describe());
    }
}
