package dev.symbiont.cli;

import dev.symbiont.train.Cancellation;
import dev.symbiont.train.NonFiniteException;
import dev.symbiont.train.Trainer;
import dev.symbiont.train.TrainingCheckpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The lines a training run ends with, the same for every task. */
final class RunEnd {
    private RunEnd() {}

    /** "12 steps in 3.4 s", with "(from step 30 to 42)" for a resumed run. */
    static String stepsTaken(Trainer.Result r) {
        return String.format(Locale.ROOT, "%d step%s in %.1f s%s", r.stepsTaken(), r.stepsTaken() == 1 ? "" : "s", r.elapsedNanos() / 1e9,
                r.startStep() > 0 ? " (from step " + r.startStep() + " to " + r.steps() + ")" : "");
    }

    /**
     * The summary's account of the last validation: its loss, or why there was none, never NaN:
     * {@code --eval-every 0} runs none, and a stop-now request (a second Ctrl-C) skips the last.
     */
    static String validation(Trainer.Result r, int evalEvery, Cancellation cancellation) { return validation(r, evalEvery, cancellation, "char"); }

    /** As {@link #validation(Trainer.Result, int, Cancellation)}, the loss in nats per {@code unit} ("char", "token"). */
    static String validation(Trainer.Result r, int evalEvery, Cancellation cancellation, String unit) {
        if (evalEvery == 0) return "no validation (--eval-every 0)";
        if (cancellation.now()) return "no validation (stopped at once)";
        return String.format(Locale.ROOT, "validation loss %.3f nats/%s", r.evalLoss(), unit);
    }

    /** After the summary of a run that was stopped early: where it stands and the command that continues it. */
    static void printInterrupted(Trainer.Result r, long steps, Path out) { printInterrupted("train", r, steps, out); }

    /** As {@link #printInterrupted(Trainer.Result, long, Path)} for the run of {@code command} ("train", "finetune"). */
    static void printInterrupted(String command, Trainer.Result r, long steps, Path out) {
        if (!r.cancelled()) return;
        System.out.printf(Locale.ROOT, "%s: interrupted at step %d of %d; checkpoint in %s. Continue with: symbiont %s --out %s --resume%n",
                command, r.steps(), steps, RunDirectory.checkpoint(out), command, out);
    }

    /**
     * The command's one-line error for a run a non-finite step stopped: the trainer's account,
     * what {@code out} holds now and what to try.
     */
    static IllegalStateException nonFinite(NonFiniteException e, Path out) { return nonFinite("train", e, out); }

    /** As {@link #nonFinite(NonFiniteException, Path)} for the run of {@code command}. */
    static IllegalStateException nonFinite(String command, NonFiniteException e, Path out) {
        Path checkpoint = RunDirectory.checkpoint(out);
        String saved;
        try {
            saved = Files.exists(checkpoint) ? TrainingCheckpoint.metadata(checkpoint).get("step") : null;
        } catch (IOException unreadable) {
            saved = null;
        }
        String next = saved == null
                ? "Start over with a lower --lr (`symbiont " + command + " --out " + out + " --force --lr …`)"
                : out + " holds the model and checkpoint of step " + saved + ": continue with `symbiont " + command + " --out " + out
                  + " --resume` and a lower --lr";
        return new IllegalStateException(e.getMessage() + ". " + next + ", or pass --skip-nonfinite N to skip up to N such steps", e);
    }
}
