package dev.symbiont.train;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.nn.ForwardMetrics;

import java.util.ArrayList;
import java.util.List;

/**
 * What the trainer reports about one logging window, summed on the backend so that a training
 * step reads nothing back: the task and auxiliary losses of its steps (each step's the mean over
 * its micro-batches), the last step's gradient norm, and the model's forward metrics
 * ({@link MetricWindow}). {@link #read} brings them to the host when a line is logged, as
 * {@link HostTransfer#LOGGED_METRICS}.
 */
final class LogWindow {
    private final int accumulation;
    private final MetricWindow metrics = new MetricWindow();
    private Tensor loss, aux, gradNorm;
    private int steps;

    LogWindow(int accumulation) { this.accumulation = accumulation; }

    /**
     * Adds one micro-batch: its task loss and auxiliary loss (null for none), 0-dim, and the
     * model's metrics of its forward. Call it before backward, which may recycle the losses' buffers.
     */
    void addMicroBatch(Tensor taskLoss, Tensor auxiliaryLoss, ForwardMetrics forward) {
        loss = plus(loss, taskLoss);
        if (auxiliaryLoss != null) aux = plus(aux, auxiliaryLoss);
        metrics.add(forward);
    }

    /** Closes a step whose clipping gave {@code norm} (0-dim, or null when not clipping). */
    void endStep(Tensor norm) {
        gradNorm = norm;
        steps++;
    }

    private Tensor plus(Tensor sum, Tensor value) {
        Tensor v = value.detach().to(DType.FLOAT32); // a loss under autocast may be low precision
        if (accumulation > 1) v = v.div(accumulation);
        return sum == null ? v : sum.add(v);
    }

    /**
     * The window's means: task loss and auxiliary loss per step (0 without an auxiliary loss),
     * the last gradient norm (NaN when not clipping) and the model's metrics per micro-batch.
     */
    record Values(double loss, double aux, double gradNorm, ForwardMetrics.Read metrics) {}

    /** Reads the window to the host (a download of the losses and norm, one per metrics layout). */
    Values read() {
        if (steps == 0) throw new IllegalStateException("LogWindow.read: no step since the last reset");
        try (var allowed = HostTransfer.LOGGED_METRICS.allow()) {
            List<Tensor> parts = new ArrayList<>(List.of(loss.reshape(1)));
            if (aux != null) parts.add(aux.reshape(1));
            if (gradNorm != null) parts.add(gradNorm.reshape(1));
            float[] host = Tensor.cat(parts, 0).toFloatArray();
            double auxMean = aux == null ? 0 : (double) host[1] / steps;
            double norm = gradNorm == null ? Double.NaN : host[host.length - 1];
            return new Values((double) host[0] / steps, auxMean, norm, metrics.read());
        }
    }

    void reset() {
        loss = null;
        aux = null;
        gradNorm = null;
        steps = 0;
        metrics.reset();
    }
}
