package dev.symbiont.core.distributed.mpi;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A two-rank mpirun job whose rank 1 fails while rank 0 waits for it in a collective
 * ({@link MpiFailureMain}) ends within the test's limit, with the failed rank named in the
 * output and a non-zero exit code: it never hangs. Ranks that simply return without closing the
 * communicator are no failure: mpirun would report them as "exiting improperly" without the
 * shutdown hook's {@code MPI_Finalize}.
 */
class MpiFailureTest {
    private static final Duration LIMIT = Duration.ofSeconds(90);
    /** Open MPI's name for rank 1 of the job in its reports: {@code [[jobid,1],1]}. */
    private static final Pattern OPEN_MPI_RANK_1 = Pattern.compile("\\[\\[\\d+,\\d+],1]");

    @Test
    void aRankThatExitsAbruptlyEndsTheJobAndIsNamed() throws Exception {
        MpiJobs.Outcome job = run("halt", List.of());
        assertFalse(job.timedOut(), job.describe());
        assertEquals(3, job.exitCode(), job.describe());
        assertTrue(OPEN_MPI_RANK_1.matcher(job.output()).find(), "Open MPI's report does not name rank 1: " + job.describe());
        assertFalse(job.output().contains("second allReduce returned"), job.describe());
    }

    @Test
    void aRankThatAbortsEndsTheJobWithItsMessageAndCode() throws Exception {
        MpiJobs.Outcome job = run("abort", List.of());
        assertFalse(job.timedOut(), job.describe());
        assertEquals(5, job.exitCode(), job.describe());
        // The communicator's own line names the rank; Open MPI 4.1's "MPI_ABORT was invoked on rank 1"
        // banner is not asserted: mpirun sometimes loses it ("Data unpack had inadequate space ... show_help.c").
        assertTrue(job.output().contains("rank 1: giving up"), job.describe());
        assertFalse(job.output().contains("second allReduce returned"), job.describe());
    }

    @Test
    void aRankThatStopsCallingCollectivesIsAbortedByTheOthersTimeout() throws Exception {
        MpiJobs.Outcome job = run("stall", List.of("-D" + MpiCommunicator.TIMEOUT_PROPERTY + "=PT3S"));
        assertFalse(job.timedOut(), job.describe());
        assertEquals(MpiCommunicator.TIMEOUT_EXIT_CODE, job.exitCode(), job.describe());
        assertTrue(job.output().contains("rank 0: allReduce of 7 float32 (SUM) did not complete within 3 s"), job.describe());
        assertFalse(job.output().contains("second allReduce returned"), job.describe());
    }

    @Test
    void ranksThatReturnWithoutClosingAreFinalisedByTheShutdownHook() throws Exception {
        MpiJobs.Outcome job = run("return", List.of());
        assertEquals(0, job.exitCode(), job.describe());
        assertTrue(job.output().contains("rank 0: first allReduce done") && job.output().contains("rank 1: first allReduce done"), job.describe());
        assertFalse(job.output().contains("exiting improperly"), job.describe());
    }

    private static MpiJobs.Outcome run(String scenario, List<String> jvmArgs) throws Exception {
        return MpiJobs.run(2, jvmArgs, MpiFailureMain.class, List.of(scenario), LIMIT);
    }
}
