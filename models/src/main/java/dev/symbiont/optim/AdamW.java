package dev.symbiont.optim;

import dev.symbiont.nn.Parameter;

import java.util.List;
import java.util.Map;

/**
 * Adam with decoupled weight decay (Loshchilov and Hutter), as torch.optim.AdamW: the
 * parameter shrinks before the Adam update instead of the decay entering the moments,
 * <pre>
 *   p = p − lr·wd·p          (computed as p·(1 − lr·wd))
 *   p = Adam update of p with g = grad
 * </pre>
 * so the decay is not rescaled by the adaptive denominator. See {@link Adam} for the rest.
 */
public final class AdamW extends Adam {
    /** PyTorch's AdamW defaults at this lr: betas (0.9, 0.999), eps 1e-8, weight decay 0.01. */
    public static Options options(double lr) { return Adam.options(lr).weightDecay(0.01); }

    /** One group holding all of {@code params}. */
    public AdamW(Map<String, Parameter> params, Options options) {
        this(List.of(new ParamGroup("default", params)), options);
    }

    /** Groups that do not set their own lr or weight decay take those of {@code options}. */
    public AdamW(List<ParamGroup> groups, Options options) {
        super("AdamW", true, groups, options);
    }
}
