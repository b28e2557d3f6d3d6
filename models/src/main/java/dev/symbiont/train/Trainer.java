package dev.symbiont.train;

import dev.symbiont.amp.GradScaler;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.data.Batches;
import dev.symbiont.data.DataLoader;
import dev.symbiont.nn.ForwardMetrics;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.parallel.DistributedDataParallel;
import dev.symbiont.optim.GradClip;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.Optimizer;

import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The training loop: micro-batches with gradient accumulation, optional autocast and float16
 * loss scaling, clipping, the lr schedule, the optimizer step; periodic evaluation, metrics
 * and checkpoints; resume from a checkpoint. What a step computes is the caller's
 * {@link LossFunction}, so one trainer serves every model family. Modules that report metrics
 * about their forward ({@link dev.symbiont.nn.ReportsMetrics}: an MoE layer's expert load) are
 * logged too, as window means after the fixed columns, their headline in the progress line.
 * A step reads nothing back from the backend: the losses, the gradient norm and those metrics are
 * summed there and read when a line is logged; the batches, evaluation and checkpoints are the
 * other transfers it makes ({@link dev.symbiont.core.backend.HostTransfer}).
 * A step whose loss or gradient norm is NaN or infinite is flagged there too: read with the
 * window, before anything is evaluated or saved, it stops the run with a {@link NonFiniteException}
 * naming the step, or, up to {@link TrainerConfig#skipNonFinite()} times, its update is taken back
 * on the backend and the run goes on.
 *
 * <pre>
 *   var trainer = Trainer.builder(model, optimizer, trainLoader, batch -> model.loss(batch))
 *           .schedule(LrSchedule.warmupCosine(3e-4, 3e-5, 100, 2000))
 *           .eval(valLoader, batch -> model.loss(batch))
 *           .config(TrainerConfig.steps(2000).withEval(200, 20).withClipNorm(1.0))
 *           .build();
 *   Trainer.Result result = trainer.fit();
 * </pre>
 */
public final class Trainer<B> {
    /** Computes the mean loss of one batch with the model (in whatever mode the trainer set). */
    @FunctionalInterface
    public interface LossFunction<B> {
        Tensor loss(B batch);
    }

    /**
     * Called after each training checkpoint is written, with the step it holds: to write what
     * else a run directory keeps beside it (the model file for inference, its tokenizer), so that
     * a run killed at any moment leaves a usable model of its last checkpoint.
     */
    @FunctionalInterface
    public interface CheckpointListener {
        void saved(long step) throws IOException;
    }

    /**
     * How a run ended: steps reached, the mean training loss of the last logged window, the last
     * evaluation's loss (NaN if none), the time this run took, the step it started from (non-zero when
     * resumed), whether a {@link Cancellation} stopped it early, and the last evaluation's metric
     * (NaN without an {@link EvalScore}).
     */
    public record Result(long steps, double trainLoss, double evalLoss, long elapsedNanos, long startStep, boolean cancelled,
                         double evalMetric) {
        /** Optimizer steps this run took (a resumed run counts only its own). */
        public long stepsTaken() { return steps - startStep; }
    }

    private final Module model;
    private final Optimizer optimizer;
    private final DataLoader<?, B> train;
    private final LossFunction<B> lossFunction;
    private final LrSchedule schedule;
    private final DataLoader<?, B> eval;
    private final LossFunction<B> evalLoss;
    private final String evalMetricName;
    private final EvalScore<B> evalScore;
    private final ToLongFunction<B> tokensPerBatch;
    private final String throughputUnit;
    private final Supplier<Tensor> auxiliaryLoss;
    private final GradScaler scaler;
    private final TrainerConfig config;
    private final Cancellation cancellation;
    private final Map<String, String> checkpointMetadata;
    private final CheckpointListener onCheckpoint;
    private final TrainingCheckpoint.ModelState checkpointState;
    private final LongSupplier nanoTime;
    private final DistributedRun run;

    private Trainer(Builder<B> b) {
        this.model = b.model;
        this.optimizer = b.optimizer;
        this.train = b.train;
        this.lossFunction = b.loss;
        this.schedule = b.schedule != null ? b.schedule : LrSchedule.constant(b.optimizer.lr());
        this.eval = b.eval;
        this.evalLoss = b.evalLoss;
        this.evalMetricName = b.evalMetricName;
        this.evalScore = b.evalScore;
        this.tokensPerBatch = b.tokensPerBatch;
        this.throughputUnit = b.throughputUnit;
        this.auxiliaryLoss = b.auxiliaryLoss;
        this.scaler = b.scaler;
        this.config = b.config;
        this.cancellation = b.cancellation;
        this.checkpointMetadata = Map.copyOf(b.checkpointMetadata);
        this.onCheckpoint = b.onCheckpoint;
        this.checkpointState = b.checkpointState;
        this.nanoTime = b.nanoTime;
        this.run = DistributedRun.of(b.ddp);
        run.check(model, train, eval);
    }

    public static <B> Builder<B> builder(Module model, Optimizer optimizer, DataLoader<?, B> train, LossFunction<B> loss) {
        return new Builder<>(model, optimizer, train, loss);
    }

    /** Trains to {@code maxSteps}, resuming from the checkpoint when configured and present. */
    public Result fit() throws IOException {
        TrainingCheckpoint.Position start = new TrainingCheckpoint.Position(0, 0, 0);
        boolean resumed = config.resume() && Files.exists(config.checkpoint());
        TrainingTime before = null;
        if (resumed) {
            start = TrainingCheckpoint.load(config.checkpoint(), model, optimizer, scaler);
            try {
                before = TrainingTime.of(TrainingCheckpoint.metadata(config.checkpoint()));
            } catch (IllegalArgumentException e) {
                throw new IOException(config.checkpoint() + ": " + e.getMessage(), e);
            }
        }
        ScheduleClock clock = new ScheduleClock(config.maxSteps(), start.step(), config.timeLimit(), before, nanoTime);
        long step = start.step();
        double lastEval = Double.NaN, lastMetric = Double.NaN, lastWindow = Double.NaN;
        long windowTokens = 0, windowStart = nanoTime.getAsLong();
        // Losses, gradient norm and model metrics stay on the backend until a line is logged.
        LogWindow window = new LogWindow(config.accumulation());
        NonFiniteGuard guard = new NonFiniteGuard(config.skipNonFinite());
        model.train();
        Batches<B> batches = train.epoch(start.epoch(), start.batch());
        boolean cancelled = false;
        // A fresh run starts a fresh metrics file; a resumed one drops the rows logged after its checkpoint.
        // A resumed CSV whose columns differ (written before the model's metrics were logged) is widened, with a note.
        // Rank 0 alone shows progress and writes files.
        try (Progress progress = Progress.create(run.leader() ? config.progress() : TrainerConfig.ProgressMode.NONE, config.out(), step, config.maxSteps());
             MetricsWriter metrics = config.metrics() == null || !run.leader() ? null : MetricsWriter.continuing(config.metrics(), step, progress::message)) {
            if (resumed) progress.message("resuming from step " + step + " of " + config.maxSteps() + " (" + config.checkpoint() + ")");
            if (cancellation != null) cancellation.finished(step); // a request before the first step stops after it
            while (step < config.maxSteps()) {
                for (int micro = 0; micro < config.accumulation(); micro++) {
                    if (!batches.hasNext()) batches = nextEpoch(batches);
                    B batch = batches.next();
                    try (var local = run.microBatch(micro, config.accumulation())) {
                        backward(batch, window);
                    }
                    if (tokensPerBatch != null) windowTokens += tokensPerBatch.applyAsLong(batch);
                }
                run.finishGradients(window);
                double lr = schedule.applyTo(optimizer, run.scheduleStep(clock.scheduleStep(step), config.timeLimit() != null));
                window.endStep(update(window));
                step++;
                DistributedRun.Stop stop = run.agree(cancellation != null && cancellation.finished(step), clock.timeUp(), stopNow());
                cancelled = stop.cancelled();
                boolean last = step == config.maxSteps() || cancelled || stop.timeUp();
                boolean evaluate = eval != null && config.evalEvery() > 0 && (step % config.evalEvery() == 0 || last) && !stop.now();
                boolean save = config.checkpoint() != null && (last || (config.checkpointEvery() > 0 && step % config.checkpointEvery() == 0));
                if (step % config.logEvery() == 0 || last || evaluate || save) {
                    // Read before anything is evaluated or saved: a non-finite step stops the run here.
                    LogWindow.Values logged = window.read();
                    guard.judge(logged.nonFinite(), step - window.steps() + 1, progress::message);
                    double[] evaluation = evaluate ? evaluation().run(this::stopNow) : null;
                    if (evaluate && evaluation == null) { // a stop-now request ended it: save at once
                        evaluate = false;
                        cancelled = last = true;
                        save = config.checkpoint() != null;
                    }
                    if (evaluate) {
                        lastEval = evaluation[0];
                        lastMetric = evaluation[1];
                        guard.judgeEvaluation(step, lastEval);
                        progress.message(String.format(java.util.Locale.ROOT, "step %d: eval loss %.4f", step, lastEval)
                                + (evalScore == null ? "" : String.format(java.util.Locale.ROOT, " %s %.4f", evalMetricName, lastMetric)));
                    }
                    long now = nanoTime.getAsLong();
                    double seconds = (now - windowStart) / 1e9;
                    lastWindow = logged.loss();
                    Double auxWindow = auxiliaryLoss == null ? null : logged.aux();
                    DistributedRun.Window ranks = run.window(windowTokens, logged.metrics());
                    double tokensPerSecond = ranks.tokens() / seconds;
                    progress.update(new Progress.Snapshot(step, config.maxSteps(), lastWindow, auxWindow, ranks.metrics().headline(), lr,
                            tokensPerSecond, clock.elapsedNanos(), throughputUnit, clock.remainingNanos()));
                    if (last && step < config.maxSteps()) {
                        progress.message("stopping at step " + step + ": "
                                + (cancelled ? stopReason() : "time limit " + config.timeLimit() + " reached"));
                    }
                    if (metrics != null) {
                        Map<String, Object> row = record(step, batches.epoch(), lastWindow, auxWindow, lr, logged.gradNorm(), tokensPerSecond,
                                evaluate ? lastEval : null, clock.elapsedNanos());
                        if (evalScore != null) row.put("eval_" + evalMetricName, evaluate ? lastMetric : null);
                        row.putAll(ranks.metrics().values());
                        metrics.write(row);
                    }
                    windowTokens = 0;
                    windowStart = now;
                    window.reset();
                }
                if (save) save(step, batches, clock, progress);
                if (last) break;
            }
        } finally {
            batches.close();
        }
        run.broadcastBuffers(); // every rank ends with the model rank 0 saved
        return new Result(step, lastWindow, lastEval, clock.elapsedNanos(), start.step(), cancelled, lastMetric);
    }

    /** Writes the training checkpoint and what the listener adds beside it, on rank 0; the other ranks learn whether it worked. */
    private void save(long step, Batches<B> batches, ScheduleClock clock, Progress progress) throws IOException {
        run.broadcastBuffers();
        Map<String, String> extra = new LinkedHashMap<>(checkpointMetadata);
        extra.putAll(clock.trainingTime().toMetadata());
        var position = new TrainingCheckpoint.Position(step, batches.epoch(), batches.nextBatchIndex());
        run.onLeader("the checkpoint of step " + step, () -> {
            TrainingCheckpoint.save(config.checkpoint(), model, optimizer, scaler, position, extra, checkpointState);
            if (onCheckpoint != null) onCheckpoint.saved(step);
        });
        progress.message("step " + step + ": checkpoint saved to " + config.checkpoint());
    }

    /** Why the run was cancelled; in data-parallel training the request may have come from another rank. */
    private String stopReason() {
        String reason = cancellation == null ? null : cancellation.reason();
        return reason != null ? reason : "a stop was requested on another rank";
    }

    private Batches<B> nextEpoch(Batches<B> finished) {
        int epoch = finished.epoch() + 1;
        finished.close();
        Batches<B> next = train.epoch(epoch);
        if (!next.hasNext()) throw new IllegalStateException("Trainer: the training loader yields no batch (dataset smaller than a batch with drop-last?)");
        return next;
    }

    /**
     * Forward (under autocast when configured) and backward of one micro-batch, the auxiliary
     * loss added to the task loss; the losses and the model's forward metrics go to {@code window}
     * on the backend, nothing is read back.
     */
    private void backward(B batch, LogWindow window) {
        Tensor loss, aux;
        try (var scope = config.autocast() == null ? null : Autocast.enable(config.autocast())) {
            loss = lossFunction.loss(batch);
            aux = auxiliaryLoss == null ? null : auxiliaryLoss.get();
        }
        window.addMicroBatch(loss, aux, ForwardMetrics.of(model));
        Tensor total = aux == null ? loss : loss.add(aux);
        Tensor scaled = config.accumulation() == 1 ? total : total.div(config.accumulation());
        if (scaler != null) scaled = scaler.scale(scaled);
        scaled.backward();
    }

    /**
     * Unscale, clip, check, step, rescale; returns the gradient norm before clipping on the backend
     * (null when not clipping). The check flags the step on the backend when its loss or gradient
     * norm is not finite, and a skipped step's update is taken back there ({@link SkippedUpdate}).
     * Under an enabled {@link GradScaler} only the loss is watched: overflowing gradients are the
     * scaler's to skip.
     */
    private Tensor update(LogWindow window) {
        Tensor norm = null;
        if (scaler != null && config.clipNorm() > 0) scaler.unscale(optimizer);
        if (config.clipNorm() > 0) norm = GradClip.clipGradNorm(model.trainableParameters(), config.clipNorm());
        boolean scaling = scaler != null && scaler.isEnabled();
        Tensor watched = scaling ? null : norm != null ? norm : GradClip.totalNorm(model.trainableParameters());
        Tensor nonFinite = window.checkStep(watched);
        SkippedUpdate undo = config.skipNonFinite() > 0 ? new SkippedUpdate(optimizer) : null;
        if (scaler != null) {
            scaler.step(optimizer);
            scaler.update();
        } else {
            optimizer.step();
        }
        if (undo != null) undo.undoIf(nonFinite);
        optimizer.zeroGrad();
        return norm; // read when the window is logged
    }

    /**
     * Mean loss over the first {@code evalBatches} batches of the eval loader, in eval mode without
     * gradients. In data-parallel training every rank must call it: the batches are dealt to the ranks.
     */
    public double evaluate() {
        if (eval == null) throw new IllegalStateException("Trainer.evaluate: no eval loader was given");
        return evaluation().run(() -> false)[0];
    }

    /** Whether a {@link Cancellation#requestNow} asks to skip evaluation and save at once. */
    private boolean stopNow() { return cancellation != null && cancellation.now(); }

    private Evaluation<B> evaluation() { return new Evaluation<>(model, eval, evalLoss, evalScore, config.evalBatches(), run); }

    /** One metrics row; {@code aux_loss} appears only when the trainer adds an auxiliary loss, so other runs keep their columns. */
    private static Map<String, Object> record(long step, int epoch, double loss, Double auxLoss, double lr, double gradNorm,
                                              double tokensPerSecond, Double evalLoss, long elapsedNanos) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("step", step);
        r.put("epoch", epoch);
        r.put("loss", loss);
        if (auxLoss != null) r.put("aux_loss", auxLoss);
        r.put("lr", lr);
        r.put("grad_norm", Double.isNaN(gradNorm) ? null : gradNorm);
        r.put("tokens_per_s", tokensPerSecond);
        r.put("eval_loss", evalLoss);
        r.put("elapsed_s", elapsedNanos / 1e9);
        return r;
    }

    /** Assembles a trainer; model, optimizer, training loader and loss are required. */
    public static final class Builder<B> {
        private final Module model;
        private final Optimizer optimizer;
        private final DataLoader<?, B> train;
        private final LossFunction<B> loss;
        private LrSchedule schedule;
        private DataLoader<?, B> eval;
        private LossFunction<B> evalLoss;
        private String evalMetricName;
        private EvalScore<B> evalScore;
        private ToLongFunction<B> tokensPerBatch;
        private String throughputUnit = "tok";
        private Supplier<Tensor> auxiliaryLoss;
        private GradScaler scaler;
        private TrainerConfig config = TrainerConfig.steps(1000);
        private Cancellation cancellation;
        private final Map<String, String> checkpointMetadata = new LinkedHashMap<>();
        private CheckpointListener onCheckpoint;
        private TrainingCheckpoint.ModelState checkpointState = TrainingCheckpoint.ModelState.FULL;
        private LongSupplier nanoTime = System::nanoTime;
        private DistributedDataParallel ddp;

        private Builder(Module model, Optimizer optimizer, DataLoader<?, B> train, LossFunction<B> loss) {
            this.model = model;
            this.optimizer = optimizer;
            this.train = train;
            this.loss = loss;
        }

        /** The lr per step; without one the optimizer's lr stays constant. */
        public Builder<B> schedule(LrSchedule s) { schedule = s; return this; }

        /** Periodic evaluation on {@code loader} with {@code loss}. */
        public Builder<B> eval(DataLoader<?, B> loader, LossFunction<B> loss) { eval = loader; evalLoss = loss; evalScore = null; return this; }

        /**
         * Periodic evaluation on {@code loader} that also reports a metric: {@code eval_<metricName>}
         * in the metrics file and the progress line (e.g. {@code "accuracy"}), the loss and the metric
         * from one forward pass per batch.
         */
        public Builder<B> eval(DataLoader<?, B> loader, String metricName, EvalScore<B> score) {
            if (metricName == null || !metricName.matches("[a-z0-9_]+")) {
                throw new IllegalArgumentException("Trainer.eval: the metric name must be lower-case letters, digits and '_', got " + metricName);
            }
            eval = loader;
            evalLoss = null;
            evalMetricName = metricName;
            evalScore = score;
            return this;
        }

        /** Tokens (or samples) in a batch, for the throughput column. */
        public Builder<B> tokensPerBatch(ToLongFunction<B> f) { tokensPerBatch = f; return this; }

        /**
         * What {@link #tokensPerBatch} counts, as the progress line names it per second: {@code tok}
         * (the default) or e.g. {@code img} for images. The metrics column stays {@code tokens_per_s}.
         */
        public Builder<B> throughputUnit(String unit) {
            if (unit == null || !unit.matches("[A-Za-z]+")) throw new IllegalArgumentException("Trainer.throughputUnit: need letters, got " + unit);
            throughputUnit = unit;
            return this;
        }

        /** The clock the time limit and the time-sized schedule read (nanoseconds, as System.nanoTime): a fake one in tests. */
        Builder<B> clock(LongSupplier nanoTimeSource) { nanoTime = nanoTimeSource; return this; }

        /**
         * A loss read right after each micro-batch's forward and added to it before backward — an
         * MoE router's load balancing ({@code CausalLM::auxiliaryLoss}); null from the supplier
         * adds nothing. The training loss reported stays the task's; the auxiliary one is
         * reported beside it ({@code aux_loss} in the metrics, {@code aux} in the progress line).
         * Evaluation uses the eval loss alone.
         */
        public Builder<B> auxiliaryLoss(Supplier<Tensor> aux) { auxiliaryLoss = aux; return this; }

        /** Dynamic loss scaling for float16 autocast. */
        public Builder<B> gradScaler(GradScaler s) { scaler = s; return this; }

        public Builder<B> config(TrainerConfig c) { config = c; return this; }

        /** Stops the run after the step in which {@code c} is requested, checkpointing as at the end. */
        public Builder<B> cancellation(Cancellation c) { cancellation = c; return this; }

        /**
         * Extra metadata written into every training checkpoint (e.g. the model's config, so a
         * resume can rebuild the model); keys must not clash with the checkpoint's own.
         */
        public Builder<B> checkpointMetadata(Map<String, String> metadata) { checkpointMetadata.putAll(metadata); return this; }

        /** Runs {@code listener} after every training checkpoint is written (see {@link CheckpointListener}). */
        public Builder<B> onCheckpoint(CheckpointListener listener) { onCheckpoint = listener; return this; }

        /**
         * Which of the model's tensors checkpoints hold: {@link TrainingCheckpoint.ModelState#TRAINABLE}
         * for a run that trains a few parameters of a frozen model it loads anew on resume (LoRA); the
         * whole state dict by default.
         */
        public Builder<B> checkpointState(TrainingCheckpoint.ModelState state) { checkpointState = state; return this; }

        /**
         * Data-parallel training over {@code ddp}'s communicator (PyTorch's DDP in the training loop):
         * every rank builds its trainer alike (the model {@code ddp} wraps, the training loader built
         * with {@code shard(rank, size)} and the same seed, the eval loader unsharded, the same config)
         * and calls {@link #fit} together. Micro-batches but the last run inside
         * {@link DistributedDataParallel#noSync()}, and the step's gradients and losses are averaged
         * over the ranks before the update, so every rank clips, checks and steps alike and the
         * replicas stay bit-identical. The ranks agree each step on stopping (a cancellation or time
         * limit on any rank stops all after the same step); a non-finite loss on one rank stops all
         * with the same message. Evaluation is dealt to the ranks by batch and summed. Rank 0 alone
         * shows progress and writes the metrics, the checkpoint and {@link #onCheckpoint}'s files;
         * every rank resumes from the same checkpoint file. Batch-norm running statistics are rank 0's,
         * copied to every rank before each evaluation and checkpoint.
         */
        public Builder<B> distributed(DistributedDataParallel ddp) { this.ddp = java.util.Objects.requireNonNull(ddp, "Trainer.distributed: ddp"); return this; }

        public Trainer<B> build() { return new Trainer<>(this); }
    }
}
