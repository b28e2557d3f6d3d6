package dev.symbiont.train;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.nn.ForwardMetrics;

import java.util.ArrayList;
import java.util.List;

/**
 * What the trainer reports about one logging window, summed on the backend so that a training
 * step reads nothing back: the task and auxiliary losses of its steps (each step's the mean over
 * its micro-batches), the last step's gradient norm, the model's forward metrics
 * ({@link MetricWindow}) and which steps were not finite ({@link NonFiniteWindow}). {@link #read}
 * brings them to the host when a line is logged, as {@link HostTransfer#LOGGED_METRICS}. A step
 * whose loss or gradient norm is not finite is left out of the window's loss means.
 */
final class LogWindow {
    private final int accumulation;
    private final MetricWindow metrics = new MetricWindow();
    private final NonFiniteWindow nonFinite = new NonFiniteWindow();
    private Tensor loss, aux, gradNorm;
    /** The step in progress: its losses so far, and its non-finite flag once checked. */
    private Tensor stepLoss, stepAux, stepBad;
    private int steps;

    LogWindow(int accumulation) { this.accumulation = accumulation; }

    /**
     * Adds one micro-batch: its task loss and auxiliary loss (null for none), 0-dim, and the
     * model's metrics of its forward. Call it before backward, which may recycle the losses' buffers.
     */
    void addMicroBatch(Tensor taskLoss, Tensor auxiliaryLoss, ForwardMetrics forward) {
        stepLoss = plus(stepLoss, taskLoss);
        if (auxiliaryLoss != null) stepAux = plus(stepAux, auxiliaryLoss);
        metrics.add(forward);
    }

    /**
     * Checks the step in progress before its update: returns 1 (0-dim float32, on the backend)
     * when its loss (task plus auxiliary) or {@code watchedNorm} (null: not watched) is NaN or
     * infinite, else 0.
     */
    Tensor checkStep(Tensor watchedNorm) {
        if (stepLoss == null) throw new IllegalStateException("LogWindow.checkStep: no micro-batch in this step");
        stepBad = nonFinite.record(steps + 1, stepAux == null ? stepLoss : stepLoss.add(stepAux), watchedNorm);
        return stepBad;
    }

    /**
     * Replaces the step's losses with their mean over the ranks of {@code comm}, on the backend:
     * in data-parallel training every rank then checks, skips and logs the same values (a NaN on
     * one rank is a NaN on all). Every rank calls it once per step, after its last micro-batch.
     */
    void averageStepOver(Communicator comm) {
        if (stepLoss == null) throw new IllegalStateException("LogWindow.averageStepOver: no micro-batch in this step");
        Tensor packed = stepAux == null ? stepLoss.reshape(1).clone() : Tensor.cat(List.of(stepLoss.reshape(1), stepAux.reshape(1)), 0);
        comm.allReduce(packed, Reduction.AVG).await();
        stepLoss = packed.select(0, 0);
        if (stepAux != null) stepAux = packed.select(0, 1);
    }

    /** Closes a step whose clipping gave {@code norm} (0-dim, or null when not clipping). */
    void endStep(Tensor norm) {
        if (stepBad == null) checkStep(null);
        loss = plusIfFinite(loss, stepLoss);
        if (stepAux != null) aux = plusIfFinite(aux, stepAux);
        gradNorm = norm;
        stepLoss = stepAux = stepBad = null;
        steps++;
    }

    /** A non-finite step's loss would make the window's mean NaN: it adds 0 and is counted apart. */
    private Tensor plusIfFinite(Tensor sum, Tensor stepValue) {
        Tensor kept = Tensor.where(stepBad, Tensor.zerosLike(stepValue), stepValue);
        return sum == null ? kept : sum.add(kept);
    }

    private Tensor plus(Tensor sum, Tensor value) {
        Tensor v = value.detach().to(DType.FLOAT32); // a loss under autocast may be low precision
        if (accumulation > 1) v = v.div(accumulation);
        return sum == null ? v : sum.add(v);
    }

    /**
     * The window's means: task loss and auxiliary loss per finite step (0 without an auxiliary
     * loss, NaN when no step was finite), the last gradient norm (NaN when not clipping), the
     * model's metrics per micro-batch, and the window's non-finite steps.
     */
    record Values(double loss, double aux, double gradNorm, ForwardMetrics.Read metrics, NonFiniteWindow.Read nonFinite) {}

    /** Steps closed since the last reset. */
    int steps() { return steps; }

    /** Reads the window to the host (a download of the losses and norm, one per metrics layout). */
    Values read() {
        if (steps == 0) throw new IllegalStateException("LogWindow.read: no step since the last reset");
        try (var allowed = HostTransfer.LOGGED_METRICS.allow()) {
            List<Tensor> parts = new ArrayList<>(List.of(loss.reshape(1)));
            if (aux != null) parts.add(aux.reshape(1));
            if (gradNorm != null) parts.add(gradNorm.reshape(1));
            int guardFrom = parts.size();
            parts.addAll(nonFinite.parts());
            float[] host = Tensor.cat(parts, 0).toFloatArray();
            NonFiniteWindow.Read bad = nonFinite.read(host, guardFrom);
            int finiteSteps = steps - bad.skipped();
            double auxMean = aux == null ? 0 : (double) host[1] / finiteSteps;
            double norm = gradNorm == null ? Double.NaN : host[guardFrom - 1];
            return new Values((double) host[0] / finiteSteps, auxMean, norm, metrics.read(), bad);
        }
    }

    void reset() {
        loss = null;
        aux = null;
        gradNorm = null;
        steps = 0;
        metrics.reset();
        nonFinite.reset();
    }
}
