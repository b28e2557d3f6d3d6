package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.core.fused.optim.OptimizerSteps;
import dev.symbiont.nn.Parameter;

import java.util.List;
import java.util.Map;

/**
 * Adam (Kingma and Ba, Algorithm 1) as torch.optim.Adam computes it, with weight decay as L2
 * added to the gradient. At step t:
 * <pre>
 *   g = grad + wd·p                                (when wd ≠ 0)
 *   m = m + (1 − β1)·(g − m)                       (torch's lerp form of β1·m + (1 − β1)·g)
 *   v = β2·v + (1 − β2)·g²
 *   p = p − lr / (1 − β1^t) · m / (sqrt(v) / sqrt(1 − β2^t) + eps)
 * </pre>
 * with m and v starting at 0 and saved as {@code state.<param>.exp_avg} and {@code exp_avg_sq}.
 * The bias corrections are computed in double, as PyTorch computes them in Python floats.
 * The step runs as one fused pass per parameter (the optim family, {@link OptimKernels#adamStep});
 * its reference is these formulas written with tensor ops.
 */
public class Adam extends Optimizer {
    private static final String EXP_AVG = "exp_avg", EXP_AVG_SQ = "exp_avg_sq";

    /** Adam's and AdamW's hyperparameters; start from {@link Adam#options} or {@link AdamW#options}. */
    public record Options(double lr, double beta1, double beta2, double eps, double weightDecay) {
        public Options betas(double beta1, double beta2) { return new Options(lr, beta1, beta2, eps, weightDecay); }

        public Options eps(double eps) { return new Options(lr, beta1, beta2, eps, weightDecay); }

        public Options weightDecay(double weightDecay) { return new Options(lr, beta1, beta2, eps, weightDecay); }
    }

    private final double beta1, beta2, eps;
    private final boolean decoupled;

    /** PyTorch's defaults at this lr: betas (0.9, 0.999), eps 1e-8, no weight decay. */
    public static Options options(double lr) { return new Options(lr, 0.9, 0.999, 1e-8, 0); }

    /** One group holding all of {@code params}. */
    public Adam(Map<String, Parameter> params, Options options) {
        this(List.of(new ParamGroup("default", params)), options);
    }

    /** Groups that do not set their own lr or weight decay take those of {@code options}. */
    public Adam(List<ParamGroup> groups, Options options) {
        this("Adam", false, groups, options);
    }

    /** For {@link AdamW}: {@code decoupled} applies weight decay to the parameter instead of the gradient. */
    Adam(String name, boolean decoupled, List<ParamGroup> groups, Options options) {
        super(name, groups, options.lr(), options.weightDecay());
        this.beta1 = requireUnitInterval(name, "beta1", options.beta1());
        this.beta2 = requireUnitInterval(name, "beta2", options.beta2());
        this.eps = requirePositive(name, "eps", options.eps());
        this.decoupled = decoupled;
    }

    /** One pass of the optim family's kernel ({@link OptimizerSteps#adam}); the moments are replaced, not overwritten. */
    @Override
    protected final Tensor update(ParamGroup group, Tensor param, Tensor grad, ParamState state) {
        var h = new OptimKernels.AdamHyper(group.lr(), beta1, beta2, eps, group.weightDecay(), decoupled, state.step());
        OptimKernels.AdamState next = OptimizerSteps.adam(param, grad, state.buffer(EXP_AVG), state.buffer(EXP_AVG_SQ), h);
        state.setBuffer(EXP_AVG, next.expAvg());
        state.setBuffer(EXP_AVG_SQ, next.expAvgSq());
        return param;
    }

    @Override
    protected final List<String> bufferNames() {
        return List.of(EXP_AVG, EXP_AVG_SQ);
    }

    /** Beyond finiteness: the second moment is a running mean of squares, never negative. */
    @Override
    protected void checkBuffer(String key, String buffer, Tensor value) {
        super.checkBuffer(key, buffer, value);
        if (buffer.equals(EXP_AVG_SQ) && value.numel() > 0
                && value.to(dev.symbiont.core.DType.FLOAT32).neg().relu().sum().item() > 0) {
            throw new IllegalArgumentException("Adam.loadStateDict: " + key + " holds negative values; a second moment cannot be negative");
        }
    }
}
