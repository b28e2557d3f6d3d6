package dev.symbiont.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A training run in its own JVM, stopped by real signals: SIGINT (Ctrl-C) and SIGKILL
 * ({@code kill -9}). The timeouts only keep a broken run from hanging the build.
 */
class TrainSignalTest {
    @TempDir
    Path dir;

    private Path out;
    private ChildJvm run;

    @BeforeEach
    void unixOnly() {
        assumeTrue(!System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("win"), "signals need a Unix");
    }

    @AfterEach
    void stop() {
        if (run != null) run.stop();
    }

    /** Starts {@code symbiont train} on a tiny model that would run for long, checkpointing every 5 steps. */
    private void startTraining() throws IOException {
        Path corpus = dir.resolve("corpus.txt");
        Files.writeString(corpus, "the cat sat on the mat. the dog sat on the log. ".repeat(40));
        out = dir.resolve("out");
        run = ChildJvm.start(List.of(), List.of("train", "--corpus", corpus.toString(),
                "--out", out.toString(), "--batch", "8", "--context", "16", "--d-model", "32", "--layers", "1", "--heads", "2",
                "--steps", "1000000", "--eval-every", "5", "--minutes", "30", "--backend", "reference"));
    }

    @Test
    void should_say_at_once_then_save_print_the_summary_and_the_resume_hint_and_exit_130_on_sigint() throws Exception {
        startTraining();
        run.awaitError("checkpoint saved to");
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(run.process().pid())).start();
        assertEquals(0, kill.waitFor(), "kill -INT");
        assertEquals(130, run.awaitExit(), run.stdout() + "\n" + run.stderr());

        Matcher said = Pattern.compile("train: stopping after step (\\d+) — Ctrl-C again to stop now").matcher(run.stderr());
        assertTrue(said.find(), run.stderr());
        String step = said.group(1), text = run.stdout();
        int summary = text.indexOf("steps in "), hint = text.indexOf("train: interrupted at step " + step + " of 1000000; checkpoint in "
                + out.resolve(RunDirectory.CHECKPOINT) + ". Continue with: symbiont train --out " + out + " --resume");
        assertTrue(summary >= 0 && text.contains("model saved to " + out.resolve(ModelFiles.WEIGHTS)), text);
        assertTrue(hint > summary, "the summary, then the hint: " + text);
        assertTrue(run.stderr().contains("step " + step + ": checkpoint saved"), run.stderr());
    }

    @Test
    void should_leave_a_model_to_generate_from_after_kill_9() throws Exception {
        startTraining();
        run.awaitError("checkpoint saved to");
        run.process().destroyForcibly(); // SIGKILL
        run.awaitExit();

        assertTrue(Files.exists(out.resolve(ModelFiles.WEIGHTS)), "the model of the last checkpoint");
        CliRun generated = CliRun.run("generate", "--model", out.toString(), "--prompt", "the ", "--tokens", "5");
        assertEquals(0, generated.code(), generated.err());
    }
}
