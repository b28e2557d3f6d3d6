package dev.symbiont.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * How the launcher reads mpirun's standard error (texts as Open MPI 4.1.4 printed them), and the
 * JVM options it gives the ranks.
 */
class MpiReportTest {
    private static final String DASHES = "-".repeat(74);

    /** Feeds {@code lines} and returns those that passed through. */
    private static List<String> feed(MpiReport report, String... lines) {
        return java.util.Arrays.stream(lines).filter(l -> !report.take(l)).toList();
    }

    @Test
    void a_rank_killed_by_a_signal_is_named_with_the_signal_and_the_reports_are_held_back() {
        MpiReport report = new MpiReport();
        List<String> shown = feed(report, "step 5: checkpoint saved to out/checkpoint.safetensors",
                DASHES, "Primary job  terminated normally, but 1 process returned", "a non-zero exit code. Per user-direction, the job has been aborted.", DASHES,
                DASHES, "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).", DASHES);
        assertEquals(List.of("step 5: checkpoint saved to out/checkpoint.safetensors"), shown);
        assertEquals("rank 1 was killed by signal 9 (Killed), so mpirun stopped the job (exit code 137)", report.summary(137));
        assertEquals(List.of(), report.unrecognised());
    }

    @Test
    void an_abort_names_its_rank_and_code_and_the_aggregation_notes_are_held_back_too() {
        MpiReport report = new MpiReport();
        List<String> shown = feed(report, "symbiont train: rank 0: the corpus is empty", "rank 0: stopping every rank of the job",
                DASHES, "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD", "with errorcode 2.", "",
                "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.", DASHES,
                "[vm:25175] 1 more process has sent help message help-mpi-api.txt / mpi-abort",
                "[vm:25175] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages");
        assertEquals(List.of("symbiont train: rank 0: the corpus is empty", "rank 0: stopping every rank of the job"), shown);
        assertEquals("rank 0 stopped the job after an error (exit code 2)", report.summary(2));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Data unpack had inadequate space", "Data unpack would read past end of buffer", "Out of resource"})
    void when_mpirun_loses_the_abort_report_the_rank_that_said_it_aborts_is_named(String lost) {
        MpiReport report = new MpiReport();
        List<String> shown = feed(report, "symbiont train: rank 0: the corpus is empty", "rank 0: " + TrainRanks.ABORT_MESSAGE,
                "[vm:03920] [[25518,0],0] ORTE_ERROR_LOG: " + lost + " in file ../../../orte/util/show_help.c at line 513");
        assertEquals(List.of("symbiont train: rank 0: the corpus is empty", "rank 0: " + TrainRanks.ABORT_MESSAGE), shown);
        assertEquals("rank 0 stopped the job after an error (exit code 2)", report.summary(2));
    }

    @Test
    void a_non_zero_exit_names_the_first_rank_that_exited_so() {
        MpiReport report = new MpiReport();
        feed(report, DASHES, "mpirun detected that one or more processes exited with non-zero status, thus causing",
                "the job to be terminated. The first process to do so was:", "", "  Process name: [[3832,1],1]", "  Exit code:    2", DASHES);
        assertEquals("rank 1 exited with code 2, so mpirun stopped the job", report.summary(2));
    }

    @Test
    void a_report_it_does_not_know_is_given_back_whole_and_the_summary_points_to_it() {
        MpiReport report = new MpiReport();
        feed(report, DASHES, "There are not enough slots available in the system to satisfy the 4", "slots that were requested.", DASHES);
        assertEquals("the job failed with exit code 1 (mpirun's report above)", report.summary(1));
        List<String> unknown = report.unrecognised();
        assertEquals(1, unknown.size());
        assertTrue(unknown.getFirst().contains("not enough slots") && unknown.getFirst().startsWith(DASHES), unknown.getFirst());
    }

    @Test
    void the_ranks_share_the_cores_and_inherit_the_jvm_options_but_a_debugger() {
        assertEquals(4, TrainLauncher.threadsPerRank(8, 2));
        assertEquals(1, TrainLauncher.threadsPerRank(2, 3), "at least one thread");
        assertEquals(List.of("-Xmx2g", "--add-modules", "jdk.incubator.vector", "-XX:ActiveProcessorCount=1"),
                TrainLauncher.childJvmOptions(List.of("-Xmx2g", "-agentlib:jdwp=transport=dt_socket,server=y", "--add-modules", "jdk.incubator.vector"), 2, 2));
        assertEquals(List.of("-XX:ActiveProcessorCount=3"), TrainLauncher.childJvmOptions(List.of("-XX:ActiveProcessorCount=3"), 16, 2),
                "a count the user set is kept");
    }
}
