package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
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
        if (!(maxNorm > 0)) throw new IllegalArgumentException("GradClip: max norm must be > 0, got " + maxNorm);
        // A tied parameter listed twice must count, and be scaled, once; the caller's order is
        // kept so the float sum, and so a resumed run, is reproducible.
        Set<Parameter> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Parameter> unique = params.stream().filter(seen::add).toList();
        try (var scope = GradMode.disabled()) {
            Tensor sumSquares = null;
            for (Parameter p : unique) {
                Tensor g = p.grad();
                if (g == null) continue;
                // Summed on the device; only the final scalar is read back.
                Tensor s = g.square().sum();
                sumSquares = sumSquares == null ? s : sumSquares.add(s);
            }
            if (sumSquares == null) return 0.0;
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
}
