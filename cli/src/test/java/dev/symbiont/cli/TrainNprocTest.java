package dev.symbiont.cli;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.mpi.MpiRun;
import dev.symbiont.io.Safetensors;
import dev.symbiont.train.TrainingCheckpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.symbiont.cli.NprocJobs.FAST_JVM;
import static dev.symbiont.cli.NprocJobs.count;
import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code train --nproc 2}: a launcher JVM that starts two ranks through mpirun, as a user runs it.
 * Each job costs three JVM start-ups, so the runs are few and tiny. Without mpirun these tests
 * are skipped (CI installs openmpi-bin and sets {@code SYMBIONT_MPI_TESTS=required}, which makes
 * that a failure).
 */
class TrainNprocTest {
    private static final List<String> TINY = List.of("--batch", "8", "--context", "16", "--d-model", "32", "--layers", "1", "--heads", "2",
            "--minutes", "30", "--backend", "cpu");

    @TempDir
    Path dir;

    private Path corpus;
    private ChildJvm job;

    @BeforeEach
    void needsMpirun() throws IOException {
        NprocJobs.requireMpirun();
        corpus = dir.resolve("corpus.txt");
        Files.writeString(corpus, "the cat sat on the mat. the dog sat on the log. ".repeat(60));
    }

    @AfterEach
    void stop() {
        if (job != null) job.stop();
    }

    private List<String> train(Path out, String... more) {
        List<String> args = new ArrayList<>(List.of("train", "--corpus", corpus.toString(), "--out", out.toString()));
        args.addAll(TINY);
        args.addAll(List.of(more));
        return args;
    }

    @Test
    void two_ranks_reach_the_model_one_rank_reaches_on_the_same_global_batch_write_the_run_once_and_resume() throws Exception {
        Path two = dir.resolve("two"), one = dir.resolve("one");
        job = ChildJvm.start(FAST_JVM, train(two, "--steps", "4", "--eval-every", "2", "--nproc", "2"));
        assertEquals(0, job.awaitExit(), job.stdout() + job.stderr());
        String said = job.stdout();
        int threads = TrainLauncher.threadsPerRank(Runtime.getRuntime().availableProcessors(), 2);
        assertTrue(said.contains("4 steps of 8 = 2 ranks × 4 × 16 characters"), said);
        assertTrue(said.contains("; 2 ranks, " + threads + " compute thread" + (threads == 1 ? "" : "s") + " each"), said);
        assertEquals(1, count(said, "model saved to " + two.resolve(ModelFiles.WEIGHTS)), "rank 0 alone prints: " + said);
        List<String> rows = Files.readAllLines(two.resolve(RunDirectory.METRICS));
        assertEquals(List.of("2", "4"), rows.subList(1, rows.size()).stream().map(r -> r.split(",")[0]).toList(), "one writer: " + rows);

        CliRun single = CliRun.run(train(one, "--steps", "4", "--eval-every", "2").toArray(String[]::new));
        assertEquals(0, single.code(), single.err());
        Map<String, Tensor> expected = Safetensors.read(one.resolve(ModelFiles.WEIGHTS)).tensors();
        Map<String, Tensor> actual = Safetensors.read(two.resolve(ModelFiles.WEIGHTS)).tensors();
        assertEquals(expected.keySet(), actual.keySet());
        for (String key : expected.keySet()) {
            // The key bias's true gradient is zero (softmax ignores a per-query constant), so Adam (eps 1e-8) turns the
            // rounding noise of its gradient, which differs with the order of the sums, into steps of up to ±lr.
            double tolerance = key.endsWith("attn.qkv.bias") ? 4 * 3e-3 : 1e-5;
            float[] e = expected.get(key).toFloatArray(), a = actual.get(key).toFloatArray();
            for (int i = 0; i < e.length; i++) assertEquals(e[i], a[i], tolerance, key + "[" + i + "]");
        }

        job = ChildJvm.start(FAST_JVM, train(two, "--steps", "6", "--eval-every", "2", "--nproc", "2", "--resume"));
        assertEquals(0, job.awaitExit(), job.stdout() + job.stderr());
        assertTrue(job.stderr().contains("resuming from step 4 of 6"), job.stderr());
        assertTrue(job.stdout().contains("2 steps in") && job.stdout().contains("(from step 4 to 6)"), job.stdout());
        assertEquals("6", TrainingCheckpoint.metadata(RunDirectory.checkpoint(two)).get("step"));
    }

    @Test
    void a_rank_killed_mid_run_ends_the_job_and_the_launcher_names_it() throws Exception {
        job = ChildJvm.start(FAST_JVM, train(dir.resolve("out"), "--steps", "1000000", "--eval-every", "5", "--nproc", "2"));
        job.awaitError("checkpoint saved to");
        long rankOne = rank(1);
        new ProcessBuilder("kill", "-9", Long.toString(rankOne)).start().waitFor();
        assertEquals(137, job.awaitExit(), job.stdout() + job.stderr());
        assertTrue(job.stderr().contains("symbiont train: rank 1 was killed by signal 9 (Killed), so mpirun stopped the job (exit code 137)"),
                job.stderr());
        assertFalse(job.stderr().contains("-----"), "mpirun's reports are summed up, not shown: " + job.stderr());
    }

    @Test
    void an_error_every_rank_meets_ends_the_job_with_its_message_and_exit_code_2_instead_of_a_hang() throws Exception {
        // A corpus this short leaves the validation split without a window: every rank fails before training, each aborting the job.
        Files.writeString(corpus, "the cat sat on the mat. ".repeat(4));
        job = ChildJvm.start(FAST_JVM, train(dir.resolve("out"), "--steps", "2", "--nproc", "2"));
        assertEquals(2, job.awaitExit(), job.stdout() + job.stderr());
        assertTrue(job.stderr().contains("symbiont train: rank 0: the validation split of " + corpus), job.stderr());
        String[] lines = job.stderr().strip().split("\n");
        assertTrue(lines[lines.length - 1].matches("symbiont train: rank [01] stopped the job after an error \\(exit code 2\\)"),
                "the launcher's last line names the rank: " + job.stderr());
        assertFalse(job.stderr().contains("-----") || job.stderr().contains("ORTE_ERROR_LOG"), "mpirun's reports are summed up: " + job.stderr());
    }

    @Test
    void ctrl_c_on_the_launcher_stops_every_rank_after_the_same_step_and_rank_0_saves_it() throws Exception {
        Path out = dir.resolve("out");
        job = ChildJvm.start(FAST_JVM, train(out, "--steps", "1000000", "--eval-every", "5", "--nproc", "2"));
        job.awaitError("checkpoint saved to");
        new ProcessBuilder("kill", "-INT", Long.toString(job.process().pid())).start().waitFor();
        assertEquals(130, job.awaitExit(), job.stdout() + job.stderr());
        Matcher interrupted = Pattern.compile("train: interrupted at step (\\d+) of 1000000").matcher(job.stdout());
        assertTrue(interrupted.find(), job.stdout());
        assertEquals(interrupted.group(1), TrainingCheckpoint.metadata(RunDirectory.checkpoint(out)).get("step"));
        assertEquals(1, count(job.stderr(), "Ctrl-C again to stop now"), "rank 0 alone says so: " + job.stderr());
    }

    @Test
    void nproc_other_than_the_size_of_the_mpi_job_it_runs_in_is_refused() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> jvm = new ArrayList<>(FAST_JVM);
        jvm.addAll(List.of("--add-modules", "jdk.incubator.vector"));
        MpiRun byHand = new MpiRun(2, jvm, classpath, Main.class.getName(), train(dir.resolve("out"), "--steps", "2", "--nproc", "3"));
        Process p = new ProcessBuilder(byHand.command(MpiRun.mpirun(), MpiRun.currentJava(), MpiRun.runningAsRoot())).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(ChildJvm.TIMEOUT_SECONDS, TimeUnit.SECONDS), output);
        assertEquals(2, p.exitValue(), output);
        assertTrue(output.contains("symbiont train: --nproc 3 differs from the 2 ranks of the MPI job this process runs in"), output);
    }

    /** The pid of rank {@code r} among the job's processes, from the environment mpirun gave it. */
    private long rank(int r) {
        for (ProcessHandle p : job.process().descendants().toList()) {
            try {
                String env = Files.readString(Path.of("/proc", Long.toString(p.pid()), "environ"));
                if (env.contains("\0OMPI_COMM_WORLD_RANK=" + r + "\0") || env.startsWith("OMPI_COMM_WORLD_RANK=" + r + "\0")) return p.pid();
            } catch (IOException gone) {
                // not readable or already ended
            }
        }
        throw new AssertionError("no process of rank " + r + " among " + job.process().descendants().toList());
    }
}
