package dev.symbiont.optim;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.nn.Parameter;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/** Gradient clipping, applied between backward and the optimizer step. */
public final class GradClip {
    private GradClip() {}

    /**
     * Scales all gradients together so their global L2 norm is at most {@code maxNorm}, as
     * torch.nn.utils.clip_grad_norm_ does:
     * <pre>
     *   norm = sqrt(Σ_p Σ_i grad_p,i²)
     *   c    = maxNorm / (norm + 1e-6)
     *   grad = grad · c      only when c &lt; 1
     * </pre>
     * The 1e-6 keeps c finite for a zero norm and leaves the clipped norm just under maxNorm.
     * One scale for all parameters keeps the update's direction. Parameters without a gradient
     * are ignored; a non-finite norm scales the gradients to 0 or NaN as PyTorch does, so check
     * for it (or let {@code GradScaler} skip the step) rather than clip it away.
     *
     * @return the global norm before clipping
     */
    public static double clipGlobalNorm(Collection<Parameter> params, double maxNorm) {
        List<Parameter> unique = unique(params, maxNorm);
        try (var scope = GradMode.disabled()) {
            Tensor sumSquares = sumOfSquares(unique);
            if (sumSquares == null) return 0.0;
            // The one host read of this method: the scale is decided here, so gradients under the norm stay untouched.
            double norm = Math.sqrt(sumSquares.item());
            double coef = maxNorm / (norm + 1e-6);
            if (coef < 1) {
                for (Parameter p : unique) {
                    Tensor g = p.grad();
                    if (g != null) p.value().setGrad(g.mul(coef));
                }
            }
            return norm;
        }
    }

    /**
     * {@link #clipGlobalNorm} without a host round trip, as torch.nn.utils.clip_grad_norm_ does it:
     * the norm and c = min(1, maxNorm / (norm + 1e-6)) stay on the device, in float32, and every
     * gradient is multiplied by c (by exactly 1 when under the norm, which leaves its values as
     * they were). Read the returned norm with {@code item()} outside the step, for logging.
     *
     * @return the global norm before clipping, a 0-dim float32 tensor (0 when no parameter has a gradient)
     */
    public static Tensor clipGradNorm(Collection<Parameter> params, double maxNorm) {
        List<Parameter> unique = unique(params, maxNorm);
        try (var scope = GradMode.disabled()) {
            Tensor sumSquares = sumOfSquares(unique);
            if (sumSquares == null) return Tensor.zeros();  // on the current backend, as there is nothing to clip
            Tensor norm = sumSquares.sqrt();
            Backend be = norm.backend();
            Tensor coef = Creation.full(be, maxNorm, DType.FLOAT32).div(norm.add(1e-6)).minimum(Creation.full(be, 1, DType.FLOAT32));
            for (Parameter p : unique) {
                Tensor g = p.grad();
                if (g != null) p.value().setGrad(g.mul(coef));
            }
            return norm;
        }
    }

    /**
     * The global L2 norm of the gradients, sqrt(Σ_p Σ_i grad_p,i²), computed on the device and
     * left there, as torch.nn.utils.get_total_norm: what {@link #clipGradNorm} returns, without
     * clipping. Parameters without a gradient are ignored; a parameter listed twice counts once.
     *
     * @return a 0-dim float32 tensor (0 when no parameter has a gradient)
     */
    public static Tensor totalNorm(Collection<Parameter> params) {
        try (var scope = GradMode.disabled()) {
            Tensor sumSquares = sumOfSquares(unique(params));
            return sumSquares == null ? Tensor.zeros() : sumSquares.sqrt();
        }
    }

    /**
     * The parameters, each once: a tied parameter listed twice must count, and be scaled, once;
     * the caller's order is kept so the float sum, and so a resumed run, is reproducible.
     */
    private static List<Parameter> unique(Collection<Parameter> params, double maxNorm) {
        if (!(maxNorm > 0)) throw new IllegalArgumentException("GradClip: max norm must be > 0, got " + maxNorm);
        return unique(params);
    }

    private static List<Parameter> unique(Collection<Parameter> params) {
        Set<Parameter> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        return params.stream().filter(seen::add).toList();
    }

    /** Σ_p Σ_i grad_p,i², summed on the device; null when no parameter has a gradient. */
    private static Tensor sumOfSquares(List<Parameter> unique) {
        Tensor sumSquares = null;
        for (Parameter p : unique) {
            Tensor g = p.grad();
            if (g == null) continue;
            Tensor s = g.square().sum();
            sumSquares = sumSquares == null ? s : sumSquares.add(s);
        }
        return sumSquares;
    }
}
