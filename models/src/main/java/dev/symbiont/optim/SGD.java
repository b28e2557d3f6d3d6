package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.core.fused.optim.OptimizerSteps;
import dev.symbiont.nn.Parameter;

import java.util.List;
import java.util.Map;

/**
 * Stochastic gradient descent with momentum, as torch.optim.SGD computes it:
 * <pre>
 *   g = grad + wd·p                         (L2 weight decay, when wd ≠ 0)
 *   b = g                 on the first step
 *   b = μ·b + (1 − τ)·g   after             (momentum μ, dampening τ, when μ ≠ 0)
 *   g = g + μ·b  (Nesterov)  or  g = b
 *   p = p − lr·g
 * </pre>
 * The buffer {@code b} is saved as {@code state.<param>.momentum_buffer}.
 */
public final class SGD extends Optimizer {
    private static final String MOMENTUM_BUFFER = "momentum_buffer";

    /** SGD's hyperparameters; start from {@link SGD#options(double)} and change what differs. */
    public record Options(double lr, double momentum, double dampening, boolean nesterov, double weightDecay) {
        public Options momentum(double momentum) { return new Options(lr, momentum, dampening, nesterov, weightDecay); }

        public Options dampening(double dampening) { return new Options(lr, momentum, dampening, nesterov, weightDecay); }

        public Options nesterov(boolean nesterov) { return new Options(lr, momentum, dampening, nesterov, weightDecay); }

        public Options weightDecay(double weightDecay) { return new Options(lr, momentum, dampening, nesterov, weightDecay); }
    }

    private final double momentum, dampening;
    private final boolean nesterov;

    /** Plain SGD at this lr: no momentum, dampening or weight decay. */
    public static Options options(double lr) { return new Options(lr, 0, 0, false, 0); }

    /** One group holding all of {@code params}. */
    public SGD(Map<String, Parameter> params, Options options) {
        this(List.of(new ParamGroup("default", params)), options);
    }

    /** Groups that do not set their own lr or weight decay take those of {@code options}. */
    public SGD(List<ParamGroup> groups, Options options) {
        super("SGD", groups, options.lr(), options.weightDecay());
        this.momentum = requireUnitInterval("SGD", "momentum", options.momentum());
        if (!(options.dampening() >= 0 && options.dampening() <= 1)) {
            throw new IllegalArgumentException("SGD: dampening must be in [0, 1], got " + options.dampening());
        }
        this.dampening = options.dampening();
        if (options.nesterov() && (momentum == 0 || dampening != 0)) {
            throw new IllegalArgumentException("SGD: Nesterov momentum needs momentum > 0 and dampening 0, got momentum "
                    + momentum + " and dampening " + dampening);
        }
        this.nesterov = options.nesterov();
    }

    @Override
    protected Tensor update(ParamGroup group, Tensor param, Tensor grad, ParamState state) {
        if (momentum != 0) { // one fused pass (the optim family); the buffer is replaced, not overwritten
            var h = new OptimKernels.SgdHyper(group.lr(), momentum, dampening, nesterov, group.weightDecay());
            state.setBuffer(MOMENTUM_BUFFER, OptimizerSteps.sgdMomentum(param, grad, state.buffer(MOMENTUM_BUFFER), h));
            return param;
        }
        Tensor g = group.weightDecay() == 0 ? grad : grad.add(param.mul(group.weightDecay()));
        return param.sub(g.mul(group.lr()));
    }

    @Override
    protected List<String> bufferNames() {
        return momentum == 0 ? List.of() : List.of(MOMENTUM_BUFFER);
    }
}
