package dev.symbiont.optim;

import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Named parameters that share a learning rate and a weight decay, like a torch.optim param
 * group. A group built without an lr or weight decay takes the optimizer's; schedules change
 * the lr of a group while training ({@link #setLr}).
 */
public final class ParamGroup {
    private final String name;
    private final Map<String, Parameter> params;
    // NaN until the optimizer fills in its default: "not given" without a nullable box.
    private double lr;
    private double weightDecay;

    /** A group that takes the optimizer's lr and weight decay. */
    public ParamGroup(String name, Map<String, Parameter> params) {
        this(name, params, Double.NaN, Double.NaN);
    }

    /** A group with its own weight decay (e.g. 0 for biases and norm weights). */
    public ParamGroup(String name, Map<String, Parameter> params, double weightDecay) {
        this(name, params, Double.NaN, weightDecay);
    }

    /** A group with its own lr and weight decay. */
    public ParamGroup(String name, Map<String, Parameter> params, double lr, double weightDecay) {
        this.name = name;
        this.params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        this.lr = lr;
        this.weightDecay = weightDecay;
    }

    /**
     * Splits parameters the way GPT training recipes do: tensors with 2 or more dims (matmul
     * and embedding weights) decay, the rest (biases, norm gains) do not, because shrinking an
     * offset or a scale toward 0 regularises nothing useful. Returns the groups "decay" and
     * "no_decay", in that order; either may be empty.
     */
    public static List<ParamGroup> splitDecay(Map<String, Parameter> params, double weightDecay) {
        Map<String, Parameter> decay = new LinkedHashMap<>(), noDecay = new LinkedHashMap<>();
        params.forEach((name, p) -> (p.shape().length >= 2 ? decay : noDecay).put(name, p));
        return List.of(new ParamGroup("decay", decay, weightDecay), new ParamGroup("no_decay", noDecay, 0.0));
    }

    /** {@link #splitDecay(Map, double)} over a module's named parameters. */
    public static List<ParamGroup> splitDecay(Module module, double weightDecay) {
        return splitDecay(module.namedParameters(), weightDecay);
    }

    public String name() { return name; }

    /** The parameters by name, in insertion order (unmodifiable). */
    public Map<String, Parameter> params() { return params; }

    public double lr() { return lr; }

    public double weightDecay() { return weightDecay; }

    /** Sets the learning rate used by the next step; must be a finite value >= 0. */
    public void setLr(double lr) {
        this.lr = check("lr", lr);
    }

    /** Sets the weight decay used by the next step; must be a finite value >= 0. */
    public void setWeightDecay(double weightDecay) {
        this.weightDecay = check("weight decay", weightDecay);
    }

    /** Called by the optimizer: fills what the group left open and checks what it set. */
    void adopt(String optimizer, double defaultLr, double defaultWeightDecay) {
        if (Double.isNaN(lr)) lr = defaultLr;
        if (Double.isNaN(weightDecay)) weightDecay = defaultWeightDecay;
        Optimizer.requireNonNegative(optimizer, "lr of group '" + name + "'", lr);
        Optimizer.requireNonNegative(optimizer, "weight decay of group '" + name + "'", weightDecay);
    }

    private double check(String what, double value) {
        return Optimizer.requireNonNegative("ParamGroup '" + name + "'", what, value);
    }

    @Override
    public String toString() {
        return "ParamGroup(" + name + ", " + params.size() + " params, lr=" + lr + ", weight_decay=" + weightDecay + ")";
    }
}
