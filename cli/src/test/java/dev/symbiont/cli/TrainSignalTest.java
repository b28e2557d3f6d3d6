package dev.symbiont.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A training run in its own JVM, stopped by real signals: SIGINT (Ctrl-C) and SIGKILL
 * ({@code kill -9}). The timeouts only keep a broken run from hanging the build.
 */
class TrainSignalTest {
    private static final long TIMEOUT_SECONDS = 180;

    @TempDir
    Path dir;

    private Path out;
    private Process process;
    private final StringBuffer stdout = new StringBuffer(), stderr = new StringBuffer();

    @BeforeEach
    void unixOnly() {
        assumeTrue(!System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("win"), "signals need a Unix");
    }

    @AfterEach
    void stop() {
        if (process != null && process.isAlive()) process.destroyForcibly();
    }

    /** Starts {@code symbiont train} on a tiny model that would run for long, checkpointing every 5 steps. */
    private void startTraining() throws IOException {
        Path corpus = dir.resolve("corpus.txt");
        Files.writeString(corpus, "the cat sat on the mat. the dog sat on the log. ".repeat(40));
        out = dir.resolve("out");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector", "-Dstdout.encoding=UTF-8",
                "-Dstderr.encoding=UTF-8", "-cp", classpath, Main.class.getName(), "train", "--corpus", corpus.toString(),
                "--out", out.toString(), "--batch", "8", "--context", "16", "--d-model", "32", "--layers", "1", "--heads", "2",
                "--steps", "1000000", "--eval-every", "5", "--minutes", "30", "--backend", "reference"));
        process = new ProcessBuilder(command).start();
        pump(process.getInputStream(), stdout);
        pump(process.getErrorStream(), stderr);
    }

    private static void pump(InputStream in, StringBuffer into) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[4096];
            try (in) {
                for (int n; (n = in.read(buffer)) > 0; ) into.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            } catch (IOException closed) {
                // the process ended
            }
        });
        t.setDaemon(true);
        t.start();
    }

    /** Waits until the run has saved its first checkpoint (with the model beside it). */
    private void awaitFirstCheckpoint() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!stderr.toString().contains("checkpoint saved to") && process.isAlive() && System.nanoTime() < deadline) Thread.sleep(50);
        assertTrue(stderr.toString().contains("checkpoint saved to"), "no checkpoint: " + stdout + stderr);
    }

    private int awaitExit() throws InterruptedException {
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the run did not end: " + stdout + stderr);
        Thread.sleep(200); // the pumps read the last bytes
        return process.exitValue();
    }

    @Test
    void should_say_at_once_then_save_print_the_summary_and_the_resume_hint_and_exit_130_on_sigint() throws Exception {
        startTraining();
        awaitFirstCheckpoint();
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start();
        assertEquals(0, kill.waitFor(), "kill -INT");
        assertEquals(130, awaitExit(), stdout + "\n" + stderr);

        Matcher said = Pattern.compile("train: stopping after step (\\d+) — Ctrl-C again to stop now").matcher(stderr);
        assertTrue(said.find(), stderr.toString());
        String step = said.group(1), text = stdout.toString();
        int summary = text.indexOf("steps in "), hint = text.indexOf("train: interrupted at step " + step + " of 1000000; checkpoint in "
                + out.resolve(RunDirectory.CHECKPOINT) + ". Continue with: symbiont train --out " + out + " --resume");
        assertTrue(summary >= 0 && text.contains("model saved to " + out.resolve(ModelFiles.WEIGHTS)), text);
        assertTrue(hint > summary, "the summary, then the hint: " + text);
        assertTrue(stderr.toString().contains("step " + step + ": checkpoint saved"), stderr.toString());
    }

    @Test
    void should_leave_a_model_to_generate_from_after_kill_9() throws Exception {
        startTraining();
        awaitFirstCheckpoint();
        process.destroyForcibly(); // SIGKILL
        awaitExit();

        assertTrue(Files.exists(out.resolve(ModelFiles.WEIGHTS)), "the model of the last checkpoint");
        CliRun generated = CliRun.run("generate", "--model", out.toString(), "--prompt", "the ", "--tokens", "5");
        assertEquals(0, generated.code(), generated.err());
    }
}
