package dev.symbiont.cli;

import dev.symbiont.io.Safetensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The safety nets of {@code train}: a diverging run stops without saving a NaN model, every
 * checkpoint comes with a model to generate from, and Ctrl-C (pressed through the command's own
 * {@link CtrlC}, no signal) says at once what it will do and always ends with the summary.
 */
class TrainSafetyTest {
    @TempDir
    Path dir;

    private static final List<String> TINY = List.of("--batch", "8", "--context", "16", "--d-model", "32", "--layers", "1", "--heads", "2");

    private Path out;

    private String[] train(String... more) throws Exception {
        Path corpus = dir.resolve("corpus.txt");
        Files.writeString(corpus, "the cat sat on the mat. the dog sat on the log. ".repeat(40));
        out = dir.resolve("out");
        List<String> args = new ArrayList<>(List.of("train", "--corpus", corpus.toString(), "--out", out.toString()));
        args.addAll(TINY);
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static Consumer<picocli.CommandLine> command(Consumer<TrainCommand> action) {
        return cli -> action.accept((TrainCommand) cli.getSubcommands().get("train").getCommand());
    }

    private void assertFiniteModel() throws Exception {
        for (var e : Safetensors.read(out.resolve(ModelFiles.WEIGHTS)).tensors().entrySet()) {
            for (float v : e.getValue().toFloatArray()) assertTrue(Float.isFinite(v), e.getKey() + " holds " + v);
        }
    }

    @Test
    void should_stop_a_diverging_run_naming_the_step_and_the_quantity_without_saving_a_model() throws Exception {
        CliRun r = run(train("--lr", "1e30", "--steps", "3", "--eval-every", "1"));
        assertEquals(2, r.code(), r.out() + r.err());
        Matcher m = Pattern.compile("symbiont train: step (\\d+): the (validation loss|loss|gradient norm) is (NaN|[+-]inf), so the run stopped; "
                + "nothing from step \\1 on was saved\\. Start over with a lower --lr \\(`symbiont train --out " + Pattern.quote(out.toString())
                + " --force --lr …`\\), or pass --skip-nonfinite N to skip up to N such steps").matcher(r.err());
        assertTrue(m.find(), r.err());
        assertFalse(r.out().contains("model saved to"), r.out());
        assertFalse(Files.exists(out.resolve(ModelFiles.WEIGHTS)), "no model of a diverged step");
        assertFalse(Files.exists(out.resolve(RunDirectory.CHECKPOINT)), "no checkpoint of a diverged step");
    }

    @Test
    void should_keep_the_last_good_model_and_checkpoint_when_a_resumed_run_diverges() throws Exception {
        assertEquals(0, run(train("--steps", "5", "--eval-every", "5")).code());
        byte[] model = Files.readAllBytes(out.resolve(ModelFiles.WEIGHTS)), checkpoint = Files.readAllBytes(out.resolve(RunDirectory.CHECKPOINT));
        CliRun r = run("train", "--out", out.toString(), "--resume", "--lr", "1e30", "--steps", "10");
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains(", so the run stopped; nothing from step "), r.err());
        assertTrue(r.err().contains(out + " holds the model and checkpoint of step 5: continue with `symbiont train --out " + out
                + " --resume` and a lower --lr, or pass --skip-nonfinite N to skip up to N such steps"), r.err());
        assertArrayEquals(model, Files.readAllBytes(out.resolve(ModelFiles.WEIGHTS)), "the model of step 5 stays");
        assertArrayEquals(checkpoint, Files.readAllBytes(out.resolve(RunDirectory.CHECKPOINT)), "the checkpoint of step 5 stays");
        assertFiniteModel();
        CliRun generated = run("generate", "--model", out.toString(), "--prompt", "the ", "--tokens", "5");
        assertEquals(0, generated.code(), generated.err());
    }

    @Test
    void should_stop_once_more_non_finite_steps_than_allowed_were_skipped() throws Exception {
        // From step 3 every loss is NaN: the first window's line (step 25) finds more skipped steps than allowed.
        CliRun r = run(train("--lr", "1e30", "--steps", "30", "--eval-every", "100", "--skip-nonfinite", "2"));
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().matches("(?s).*symbiont train: step \\d+: the loss is NaN; \\d+ non-finite steps were skipped, "
                + "more than the limit of 2, so the run stopped.*"), r.err());
    }

    @Test
    void should_suggest_resume_for_a_run_directory_without_a_model() throws Exception {
        Path run = Files.createDirectories(dir.resolve("killed"));
        Files.writeString(run.resolve(RunDirectory.METRICS), "step,epoch,loss\n");
        CliRun r = run("generate", "--model", run.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("(train one with `symbiont train --out " + run + " --resume`)"), r.err());
        CliRun empty = run("generate", "--model", dir.resolve("none").toString());
        assertTrue(empty.err().contains("(train one with `symbiont train --out " + dir.resolve("none") + "`)"), empty.err());
    }

    @Test
    void should_say_at_once_what_ctrl_c_does_and_end_with_the_summary_and_the_resume_hint() throws Exception {
        CliRun r = run(command(c -> c.ctrlC.press()), train("--steps", "40", "--eval-every", "10"));
        assertEquals(130, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("train: stopping after the first step — Ctrl-C again to stop now"), r.err());
        assertTrue(r.err().contains("step 1: eval loss"), "one Ctrl-C still validates: " + r.err());
        int summary = r.out().indexOf("train: 1 step in"), hint = r.out().indexOf("train: interrupted at step 1 of 40");
        assertTrue(summary >= 0 && hint > summary, "the summary, then the hint: " + r.out());
        assertTrue(r.out().contains("Continue with: symbiont train --out " + out + " --resume"), r.out());
    }

    @Test
    void should_skip_the_validation_and_save_at_once_on_a_second_ctrl_c() throws Exception {
        CliRun r = run(command(c -> {
            c.ctrlC.press();
            c.ctrlC.press();
        }), train("--steps", "40", "--eval-every", "10"));
        assertEquals(130, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("train: stopping now: no validation, the checkpoint is saved after the first step"), r.err());
        assertFalse(r.err().contains("eval loss"), r.err());
        assertTrue(r.err().contains("step 1: checkpoint saved"), r.err());
        assertTrue(r.out().contains("train: 1 step in ") && r.out().contains(", no validation (stopped at once); model saved to "), r.out());
        assertFalse(r.out().contains("NaN"), "the skipped validation is said, not printed as a NaN loss: " + r.out());
        assertTrue(r.out().contains("train: interrupted at step 1 of 40"), r.out());
    }

    @Test
    void should_name_the_step_in_flight_when_ctrl_c_comes_during_the_run() throws Exception {
        String[] args = train("--steps", "100000", "--eval-every", "5", "--minutes", "30");
        TrainCommand[] command = new TrainCommand[1];
        CliRun[] result = new CliRun[1];
        Thread runner = new Thread(() -> result[0] = run(command(c -> command[0] = c), args));
        runner.start();
        Path checkpoint = out.resolve(RunDirectory.CHECKPOINT);
        for (int i = 0; i < 1200 && !Files.exists(checkpoint) && runner.isAlive(); i++) Thread.sleep(100);
        assertTrue(Files.exists(checkpoint), "the run saved its first checkpoint");
        command[0].ctrlC.press();
        runner.join(120_000);
        CliRun r = result[0];
        assertNotNull(r, "the run ended");
        Matcher said = Pattern.compile("stopping after step (\\d+) — Ctrl-C again to stop now").matcher(r.err());
        assertTrue(said.find(), r.err());
        assertTrue(r.out().contains("train: interrupted at step " + said.group(1) + " of 100000"), said.group() + " / " + r.out());
        assertEquals(130, r.code());
    }

    @Test
    void should_keep_a_resumed_runs_horizon_and_say_what_a_new_minutes_changes() throws Exception {
        CliRun first = run(train("--steps", "1000000", "--eval-every", "1000000", "--minutes", "0.02"));
        assertEquals(0, first.code(), first.out() + first.err());
        assertTrue(first.err().contains("time limit"), "the run ended by its time limit: " + first.err());

        CliRun again = run("train", "--out", out.toString(), "--resume");
        assertEquals(2, again.code(), again.out() + again.err());
        assertTrue(again.err().contains("symbiont train: the run in " + out + " has trained its 0.02 minutes; to train on, "
                + "give it a longer horizon with --minutes (the learning rate follows the horizon)"), again.err());

        CliRun longer = run("train", "--out", out.toString(), "--resume", "--minutes", "0.04");
        assertEquals(0, longer.code(), longer.out() + longer.err());
        assertTrue(longer.out().contains("train: --minutes 0.04 on resume: the schedule's horizon moves from 0.02 to 0.04 minutes; "
                + "the learning rate follows it"), longer.out());
    }
}
