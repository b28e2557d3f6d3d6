package dev.symbiont.train;

import dev.symbiont.core.DType;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * How a {@link Trainer} runs. Build with {@link #steps(long)} and the with-methods; every
 * optional feature is off until set.
 *
 * @param maxSteps        optimizer steps to reach (a resumed run continues to the same total)
 * @param accumulation    micro-batches per optimizer step (gradient accumulation)
 * @param clipNorm        clip gradients to this global norm; 0 turns clipping off
 * @param evalEvery       evaluate every this many steps (and at the end); 0 = never
 * @param evalBatches     batches of the eval loader per evaluation
 * @param checkpointEvery save a training checkpoint every this many steps (and at the end); 0 = only at the end
 * @param checkpoint      the checkpoint file; null = no checkpoints
 * @param resume          continue from {@code checkpoint} when it exists
 * @param metrics         a CSV or JSON-lines metrics file; null = none
 * @param logEvery        steps between progress updates and metric lines
 * @param autocast        run forward passes under autocast with this dtype; null = float32
 * @param progress        how progress is shown
 * @param out             where progress goes
 * @param timeLimit       stop (evaluate and checkpoint as at the end) once training has run this long; null = no limit.
 *                        The lr schedule follows the clock toward it; a resumed run counts the time trained before its
 *                        checkpoint ({@link TrainingTime}), so pass the run's own limit to keep its schedule
 * @param skipNonFinite   a step whose loss or gradient norm is NaN or infinite stops the run when 0 (the default); with
 *                        n &gt; 0 such a step's update is skipped instead, and the run stops at the (n+1)-th
 *                        ({@link NonFiniteException})
 */
public record TrainerConfig(long maxSteps, int accumulation, double clipNorm, int evalEvery, int evalBatches,
                            int checkpointEvery, Path checkpoint, boolean resume, Path metrics, int logEvery,
                            DType autocast, ProgressMode progress, PrintStream out, java.time.Duration timeLimit,
                            int skipNonFinite) {
    /** AUTO draws a progress bar on a terminal and prints log lines otherwise. */
    public enum ProgressMode { AUTO, BAR, LOG, NONE }

    public TrainerConfig {
        positive("maxSteps", maxSteps);
        positive("accumulation", accumulation);
        positive("evalBatches", evalBatches);
        positive("logEvery", logEvery);
        if (clipNorm < 0 || evalEvery < 0 || checkpointEvery < 0 || skipNonFinite < 0) {
            throw new IllegalArgumentException("TrainerConfig: clipNorm, evalEvery, checkpointEvery and skipNonFinite must be >= 0, got "
                    + clipNorm + ", " + evalEvery + ", " + checkpointEvery + ", " + skipNonFinite);
        }
        if (resume && checkpoint == null) throw new IllegalArgumentException("TrainerConfig: resume needs a checkpoint path");
    }

    private static void positive(String name, long value) {
        if (value <= 0) throw new IllegalArgumentException("TrainerConfig: " + name + " must be positive, got " + value);
    }

    /** Defaults: no accumulation, clipping, evaluation, checkpoints or metrics; progress every 10 steps to stderr. */
    public static TrainerConfig steps(long maxSteps) {
        return new TrainerConfig(maxSteps, 1, 0, 0, 10, 0, null, false, null, 10, null, ProgressMode.AUTO, System.err, null, 0);
    }

    public TrainerConfig withAccumulation(int microBatches) { return new TrainerConfig(maxSteps, microBatches, clipNorm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, metrics, logEvery, autocast, progress, out, timeLimit, skipNonFinite); }
    public TrainerConfig withClipNorm(double norm) { return new TrainerConfig(maxSteps, accumulation, norm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, metrics, logEvery, autocast, progress, out, timeLimit, skipNonFinite); }
    public TrainerConfig withEval(int every, int batches) { return new TrainerConfig(maxSteps, accumulation, clipNorm, every, batches, checkpointEvery, checkpoint, resume, metrics, logEvery, autocast, progress, out, timeLimit, skipNonFinite); }
    public TrainerConfig withCheckpoint(Path file, int every, boolean resumeIfPresent) { return new TrainerConfig(maxSteps, accumulation, clipNorm, evalEvery, evalBatches, every, file, resumeIfPresent, metrics, logEvery, autocast, progress, out, timeLimit, skipNonFinite); }
    public TrainerConfig withMetrics(Path file) { return new TrainerConfig(maxSteps, accumulation, clipNorm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, file, logEvery, autocast, progress, out, timeLimit, skipNonFinite); }
    public TrainerConfig withLogEvery(int steps) { return new TrainerConfig(maxSteps, accumulation, clipNorm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, metrics, steps, autocast, progress, out, timeLimit, skipNonFinite); }
    public TrainerConfig withAutocast(DType dtype) { return new TrainerConfig(maxSteps, accumulation, clipNorm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, metrics, logEvery, dtype, progress, out, timeLimit, skipNonFinite); }
    public TrainerConfig withProgress(ProgressMode mode, PrintStream stream) { return new TrainerConfig(maxSteps, accumulation, clipNorm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, metrics, logEvery, autocast, mode, stream, timeLimit, skipNonFinite); }
    /** Skip up to {@code steps} non-finite steps (their updates not applied) before stopping; 0 stops at the first. */
    public TrainerConfig withSkipNonFinite(int steps) { return new TrainerConfig(maxSteps, accumulation, clipNorm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, metrics, logEvery, autocast, progress, out, timeLimit, steps); }
    public TrainerConfig withTimeLimit(java.time.Duration limit) { return new TrainerConfig(maxSteps, accumulation, clipNorm, evalEvery, evalBatches, checkpointEvery, checkpoint, resume, metrics, logEvery, autocast, progress, out, limit, skipNonFinite); }
}
