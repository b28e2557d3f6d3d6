package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.nn.Parameter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Updates named parameters from their gradients, group by group, like torch.optim.Optimizer.
 * A subclass writes one parameter's update ({@link #update}); this class walks the groups,
 * skips parameters that are frozen or got no gradient, keeps per-parameter state and saves it.
 *
 * <p>State-dict keys follow PyTorch's names, keyed by parameter name rather than index so a
 * checkpoint survives reordering: {@code state.<param>.step} (int64 scalar),
 * {@code state.<param>.<buffer>} (shaped like the parameter, e.g. {@code exp_avg}),
 * {@code param_groups.<i>.lr} and {@code param_groups.<i>.weight_decay} (see {@link StateScalars}).
 * Hyperparameters fixed at construction (betas, momentum, eps) are configuration and are not saved.
 */
public abstract class Optimizer {
    private final String name;
    private final List<ParamGroup> groups;
    private final Map<String, Parameter> params = new LinkedHashMap<>();
    private final Map<String, ParamState> state = new LinkedHashMap<>();

    /**
     * @param name the optimizer's name for error messages ("AdamW")
     * @param lr the lr of groups that do not set their own
     * @param weightDecay the weight decay of groups that do not set their own
     */
    protected Optimizer(String name, List<ParamGroup> groups, double lr, double weightDecay) {
        this.name = name;
        requireNonNegative(name, "lr", lr);
        requireNonNegative(name, "weight decay", weightDecay);
        Set<Parameter> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (ParamGroup g : groups) {
            g.adopt(name, lr, weightDecay);
            g.params().forEach((paramName, p) -> {
                // State is keyed by name and by identity: either repeated would update a tensor twice.
                if (params.putIfAbsent(paramName, p) != null || !seen.add(p)) {
                    throw new IllegalArgumentException(name + ": parameter '" + paramName + "' appears more than once");
                }
            });
        }
        if (params.isEmpty()) throw new IllegalArgumentException(name + ": empty parameter list");
        this.groups = List.copyOf(groups);
    }

    /**
     * The new value of one parameter after this step (the caller writes it in place), or
     * {@code param} itself when the update already wrote it there (a fused step). Runs with
     * gradients off; {@code state.step()} already counts this step.
     *
     * @param param the current value, shaped like grad
     * @param grad the accumulated gradient
     */
    protected abstract Tensor update(ParamGroup group, Tensor param, Tensor grad, ParamState state);

    /** The buffers {@link #update} keeps in {@link ParamState}, as saved in the state dict. */
    protected abstract List<String> bufferNames();

    /** Applies one update to every trainable parameter that has a gradient. */
    public void step() {
        try (var scope = GradMode.disabled()) {
            for (ParamGroup g : groups) {
                for (var e : g.params().entrySet()) {
                    Parameter p = e.getValue();
                    Tensor grad = p.grad();
                    if (p.frozen() || grad == null) continue;
                    ParamState s = state.computeIfAbsent(e.getKey(), k -> new ParamState());
                    s.advance();
                    Tensor next = update(g, p.value(), grad, s);
                    if (next != p.value()) p.update(next);
                }
            }
        }
    }

    /** Clears every parameter's gradient (they accumulate across backward calls otherwise). */
    public void zeroGrad() {
        params.values().forEach(Parameter::zeroGrad);
    }

    public String name() { return name; }

    public List<ParamGroup> groups() { return groups; }

    /** Every parameter by name, across groups (unmodifiable). */
    public Map<String, Parameter> parameters() { return Collections.unmodifiableMap(params); }

    /** The state of a parameter, or null before its first update. */
    public ParamState state(String paramName) { return state.get(paramName); }

    /** The first group's lr: the lr when all groups share one, as schedules set it. */
    public double lr() { return groups.getFirst().lr(); }

    /** Sets the lr of every group. */
    public void setLr(double lr) {
        requireNonNegative(name, "lr", lr);
        groups.forEach(g -> g.setLr(lr));
    }

    // ---- state dict -----------------------------------------------------------------------------

    /**
     * The optimizer's state by dotted key (see the class comment). Buffers are the live tensors,
     * not copies; the optimizer replaces rather than overwrites them, so they stay valid after
     * later steps.
     */
    public Map<String, Tensor> stateDict() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        state.forEach((paramName, s) -> {
            out.put("state." + paramName + ".step", StateScalars.ofLong(s.step()));
            s.buffers().forEach((buffer, t) -> out.put("state." + paramName + "." + buffer, t.detach()));
        });
        for (int i = 0; i < groups.size(); i++) {
            out.put("param_groups." + i + ".lr", StateScalars.ofDouble(groups.get(i).lr()));
            out.put("param_groups." + i + ".weight_decay", StateScalars.ofDouble(groups.get(i).weightDecay()));
        }
        return out;
    }

    /**
     * Restores {@link #stateDict()}'s output: the keys are checked first and a
     * {@link StateDictException} lists every missing, unexpected and mismatched one, leaving
     * this optimizer unchanged. A parameter with no {@code state.} keys starts fresh (it had
     * not been updated); one with some keys must have all. Buffers are copied onto the
     * parameter's backend.
     */
    public void loadStateDict(Map<String, Tensor> dict) {
        StateDictException.requireMatch(name, expectedKeys(dict), dict);
        double[] lrs = new double[groups.size()], decays = new double[groups.size()];
        for (int i = 0; i < groups.size(); i++) {
            // Checked before anything changes, so a bad value leaves the optimizer as it was.
            lrs[i] = requireNonNegative(name, "param_groups." + i + ".lr", StateScalars.toDouble(dict.get("param_groups." + i + ".lr")));
            decays[i] = requireNonNegative(name, "param_groups." + i + ".weight_decay",
                    StateScalars.toDouble(dict.get("param_groups." + i + ".weight_decay")));
        }
        params.forEach((paramName, p) -> {
            Tensor step = dict.get("state." + paramName + ".step");
            if (step == null) return;
            long steps = StateScalars.toLong(step);
            if (steps < 0) {
                throw new IllegalArgumentException(name + ".loadStateDict: state." + paramName + ".step is " + steps
                        + "; a step count cannot be negative");
            }
            for (String buffer : bufferNames()) checkBuffer("state." + paramName + "." + buffer, buffer, dict.get("state." + paramName + "." + buffer));
        });
        for (int i = 0; i < groups.size(); i++) {
            groups.get(i).setLr(lrs[i]);
            groups.get(i).setWeightDecay(decays[i]);
        }
        state.clear();
        params.forEach((paramName, p) -> {
            Tensor step = dict.get("state." + paramName + ".step");
            if (step == null) return;
            ParamState s = new ParamState();
            s.setStep(StateScalars.toLong(step));
            Backend backend = p.value().backend();
            for (String buffer : bufferNames()) {
                Tensor t = dict.get("state." + paramName + "." + buffer);
                s.setBuffer(buffer, t.backend() == backend ? t.detach().clone() : t.detach().to(backend));
            }
            state.put(paramName, s);
        });
    }

    /**
     * Refuses a saved buffer no run could have produced: NaN or infinite values here; an
     * optimizer adds its own invariants (Adam's second moment is never negative). One host read.
     */
    protected void checkBuffer(String key, String buffer, Tensor value) {
        if (value.numel() > 0 && Float.isNaN(value.to(dev.symbiont.core.DType.FLOAT32).mul(0.0).sum().item())) {
            throw new IllegalArgumentException(name + ".loadStateDict: " + key + " holds NaN or infinite values");
        }
    }

    /** The keys {@code dict} must have: every group's, plus all state keys of each parameter it mentions. */
    private Map<String, StateDictException.Expected> expectedKeys(Map<String, Tensor> dict) {
        Map<String, StateDictException.Expected> expected = new LinkedHashMap<>();
        for (int i = 0; i < groups.size(); i++) {
            expected.put("param_groups." + i + ".lr", StateScalars.SPEC);
            expected.put("param_groups." + i + ".weight_decay", StateScalars.SPEC);
        }
        List<String> mentioned = new ArrayList<>();
        for (String key : dict.keySet()) {
            int dot = key.lastIndexOf('.');
            // Parameter names contain dots, buffer names do not: split at the last one.
            if (!key.startsWith("state.") || dot <= "state.".length()) continue;
            String paramName = key.substring("state.".length(), dot);
            if (params.containsKey(paramName) && !mentioned.contains(paramName)) mentioned.add(paramName);
        }
        for (String paramName : mentioned) {
            Tensor value = params.get(paramName).value();
            expected.put("state." + paramName + ".step", StateScalars.SPEC);
            for (String buffer : bufferNames()) {
                expected.put("state." + paramName + "." + buffer, new StateDictException.Expected(value.dtype(), value.shape()));
            }
        }
        return expected;
    }

    // ---- argument checks ------------------------------------------------------------------------

    /** Returns value when it is finite and >= 0; otherwise an exception naming the optimizer. */
    static double requireNonNegative(String optimizer, String what, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(optimizer + ": " + what + " must be a finite value >= 0, got " + value);
        }
        return value;
    }

    /** Returns value when it lies in [0, 1). */
    static double requireUnitInterval(String optimizer, String what, double value) {
        if (!(value >= 0 && value < 1)) {
            throw new IllegalArgumentException(optimizer + ": " + what + " must be in [0, 1), got " + value);
        }
        return value;
    }

    /** Returns value when it is finite and > 0. */
    static double requirePositive(String optimizer, String what, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(optimizer + ": " + what + " must be a finite value > 0, got " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return name + groups;
    }
}
