package dev.symbiont.cli;

import dev.symbiont.train.TrainerConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The files a training run writes into its {@code --out} directory, and the rule for reusing one. */
final class RunDirectory {
    static final String CHECKPOINT = "checkpoint.safetensors", METRICS = "metrics.csv";
    private static final List<String> FILES = List.of(CHECKPOINT, METRICS, ModelFiles.WEIGHTS, ModelFiles.TOKENIZER);

    private RunDirectory() {}

    static Path checkpoint(Path dir) { return dir.resolve(CHECKPOINT); }

    /**
     * What every task's trainer shares: evaluation every {@code evalEvery} steps on
     * {@code evalBatches} batches, a progress line every 25 steps, the metrics file and a
     * checkpoint at each evaluation in {@code dir}, resuming from it when asked, the time limit,
     * and how many non-finite steps to skip before stopping.
     */
    static TrainerConfig trainerConfig(Path dir, long steps, int evalEvery, int evalBatches, boolean resuming, double minutes,
                                       int skipNonFinite) {
        return TrainerConfig.steps(steps)
                .withSkipNonFinite(skipNonFinite)
                .withEval(evalEvery, evalBatches)
                .withLogEvery(25)
                .withMetrics(dir.resolve(METRICS))
                .withCheckpoint(checkpoint(dir), evalEvery, resuming)
                .withTimeLimit(Duration.ofMillis((long) (minutes * 60_000)));
    }

    /**
     * The command that trains a model into {@code dir}: continuing the run it holds (a run killed
     * before its first checkpoint left files that a plain {@code train --out} refuses), or a new one.
     * {@code task} is the flags that choose the task, empty for the default one.
     */
    static String trainCommand(Path dir, String task) {
        boolean holdsRun = FILES.stream().anyMatch(f -> Files.exists(dir.resolve(f)));
        return "symbiont train " + (holdsRun ? "--out " + dir + " --resume" : task + "--out " + dir);
    }

    /**
     * Whether a resumed run has nothing to do: its checkpoint is at --steps already (said on
     * standard output; no file is touched). A checkpoint past --steps is an error: a run cannot
     * go back to an earlier step.
     */
    static boolean finished(Path checkpoint, Map<String, String> saved, long steps) { return finished("train", checkpoint, saved, steps); }

    /** As {@link #finished(Path, Map, long)}, said by {@code command}. */
    static boolean finished(String command, Path checkpoint, Map<String, String> saved, long steps) {
        long step;
        try {
            step = Long.parseLong(saved.getOrDefault("step", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(checkpoint + ": the checkpoint's step '" + saved.get("step") + "' is not a number", e);
        }
        if (step > steps) {
            throw new IllegalArgumentException("--steps " + steps + " is below the step " + step + " of the checkpoint in " + checkpoint
                    + ": a resumed run cannot go back; give --steps above " + step + " or start over with --force");
        }
        if (step < steps) return false;
        System.out.println(command + ": the run in " + checkpoint.getParent() + " is already at step " + step + " of --steps " + steps
                + "; nothing to train, no file changed (give a larger --steps to train on)");
        return true;
    }

    /**
     * Makes {@code dir} ready for a run: a directory that already holds one is continued only with
     * {@code resume} and replaced only with {@code force}; otherwise this throws saying which to pass.
     */
    static void prepare(Path dir, boolean resume, boolean force) throws IOException { prepare(dir, resume, force, FILES); }

    /** As {@link #prepare(Path, boolean, boolean)} for a run that writes {@code files} into {@code dir}. */
    static void prepare(Path dir, boolean resume, boolean force, List<String> files) throws IOException {
        if (resume && force) throw new IllegalArgumentException("--resume and --force exclude each other: continue the run or replace it");
        List<String> present = files.stream().filter(f -> Files.exists(dir.resolve(f))).toList();
        if (present.isEmpty() || resume) return;
        if (!force) {
            throw new IllegalArgumentException(dir + " already holds a run (" + String.join(", ", present)
                    + "); pass --resume to continue it or --force to start over");
        }
        for (String f : present) Files.delete(dir.resolve(f));
    }
}
