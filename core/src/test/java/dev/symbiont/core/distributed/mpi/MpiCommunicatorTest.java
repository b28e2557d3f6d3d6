package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.distributed.CollectiveChecks;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The communicator conformance checks on {@link MpiCommunicator}: an mpirun job of two and of
 * three processes (and of two whose all-reduce blocks in {@code MPI_Allreduce} instead of
 * polling {@code MPI_Iallreduce}), each running every {@link CollectiveChecks} check through
 * {@code Communicators.world()} ({@link MpiConformanceMain}); the job must exit 0 with every
 * rank's "checks passed" line.
 */
class MpiCommunicatorTest {
    @TempDir
    Path shared;

    @ParameterizedTest(name = "{0} ranks, all-reduce waited for by {1}")
    @CsvSource({"2, poll", "3, poll", "2, block"})
    void everyCollectiveCheckPassesOnEveryRankOfAnMpiJob(int ranks, String wait) throws Exception {
        MpiJobs.Outcome job = MpiJobs.run(ranks, List.of("-D" + MpiCommunicator.TIMEOUT_PROPERTY + "=PT60S", "-D" + MpiWait.PROPERTY + "=" + wait),
                MpiConformanceMain.class, List.of(shared.toString()), Duration.ofSeconds(150));
        assertFalse(job.timedOut(), job.describe());
        assertEquals(0, job.exitCode(), job.describe());
        int checks = CollectiveChecks.all().size();
        for (int r = 0; r < ranks; r++) {
            assertTrue(job.output().contains(MpiConformanceMain.passed(r, ranks, checks)), "rank " + r + "'s line is missing: " + job.describe());
        }
    }
}
