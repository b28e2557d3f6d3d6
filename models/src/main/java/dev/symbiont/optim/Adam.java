package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
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

    @Override
    protected final Tensor update(ParamGroup group, Tensor param, Tensor grad, ParamState state) {
        double lr = group.lr(), wd = group.weightDecay();
        Tensor g = grad;
        if (wd != 0) {
            if (decoupled) param = param.mul(1 - lr * wd);
            else g = g.add(param.mul(wd));
        }
        Tensor m = state.buffer(EXP_AVG), v = state.buffer(EXP_AVG_SQ);
        if (m == null) {
            m = Tensor.zerosLike(param);
            v = Tensor.zerosLike(param);
        }
        m = m.add(g.sub(m).mul(1 - beta1));
        v = v.mul(beta2).add(g.mul(1 - beta2).mul(g));
        state.setBuffer(EXP_AVG, m);
        state.setBuffer(EXP_AVG_SQ, v);

        long t = state.step();
        double stepSize = lr / (1 - Math.pow(beta1, t));
        double bias2Sqrt = Math.sqrt(1 - Math.pow(beta2, t));
        Tensor denom = v.sqrt().div(bias2Sqrt).add(eps);
        return param.sub(m.div(denom).mul(stepSize));
    }

    @Override
    protected final List<String> bufferNames() {
        return List.of(EXP_AVG, EXP_AVG_SQ);
    }
}
