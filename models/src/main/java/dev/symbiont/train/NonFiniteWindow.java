package dev.symbiont.train;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.ops.Creation;

import java.util.List;

/**
 * Which steps of a logging window had a non-finite (NaN or infinite) loss or gradient norm,
 * kept on the backend so that a step reads nothing back: for each of the two quantities the
 * window-relative index (1, 2, …) of its first non-finite step and its value there, and how many
 * steps were non-finite. {@link LogWindow} reads the five scalars with its own download.
 *
 * <p>No comparison op is needed: {@code x · 0} is 0 for a finite x and NaN otherwise, and
 * {@code where} takes NaN as true (it is not zero), as GradScaler's overflow check also uses.
 */
final class NonFiniteWindow {
    /** What the window held: for the loss and the gradient norm, the first non-finite step (0 for none) and its value. */
    record Read(int skipped, int lossIndex, double lossValue, int normIndex, double normValue) {
        boolean any() { return skipped > 0; }
    }

    private Tensor lossIndex, lossValue, normIndex, normValue, count;

    /**
     * Records step {@code index} of the window (from 1) and returns its flag, 0-dim float32:
     * 1 when {@code loss} or {@code gradNorm} (null: not watched) is NaN or infinite, else 0.
     */
    Tensor record(int index, Tensor loss, Tensor gradNorm) {
        Backend be = loss.backend();
        if (count == null) {
            Tensor none = scalar(be, Double.POSITIVE_INFINITY), zero = scalar(be, 0);
            lossIndex = none;
            normIndex = none;
            lossValue = zero;
            normValue = zero;
            count = zero;
        }
        Tensor at = scalar(be, index);
        Tensor badLoss = nonFinite(loss);
        // The value follows the quantity until its first non-finite step, then stays: index·0 is NaN while it is +inf.
        lossValue = Tensor.where(lossIndex.mul(0.0), loss, lossValue);
        lossIndex = lossIndex.minimum(Tensor.where(badLoss, at, scalar(be, Double.POSITIVE_INFINITY)));
        Tensor bad = badLoss;
        if (gradNorm != null) {
            Tensor badNorm = nonFinite(gradNorm);
            normValue = Tensor.where(normIndex.mul(0.0), gradNorm, normValue);
            normIndex = normIndex.minimum(Tensor.where(badNorm, at, scalar(be, Double.POSITIVE_INFINITY)));
            bad = bad.maximum(badNorm);
        }
        count = count.add(bad);
        return bad;
    }

    /** 1 where {@code x} is NaN or infinite, 0 where finite. */
    private static Tensor nonFinite(Tensor x) {
        Backend be = x.backend();
        return Tensor.where(x.mul(0.0), scalar(be, 1), scalar(be, 0));
    }

    private static Tensor scalar(Backend be, double value) { return Creation.full(be, value, DType.FLOAT32); }

    /** The scalars to download, in the order {@link #read} takes them; empty before the window's first step. */
    List<Tensor> parts() {
        if (count == null) return List.of();
        return List.of(count.reshape(1), lossIndex.reshape(1), lossValue.reshape(1), normIndex.reshape(1), normValue.reshape(1));
    }

    /** Decodes {@link #parts()} from {@code host} at {@code from}. */
    Read read(float[] host, int from) {
        if (count == null) return new Read(0, 0, Double.NaN, 0, Double.NaN);
        return new Read((int) host[from], index(host[from + 1]), host[from + 2], index(host[from + 3]), host[from + 4]);
    }

    private static int index(float value) { return Float.isInfinite(value) ? 0 : (int) value; }

    void reset() {
        lossIndex = lossValue = normIndex = normValue = count = null;
    }
}
