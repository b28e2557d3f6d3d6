package dev.symbiont.nn;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A building block with named parameters, buffers and submodules, like torch.nn.Module.
 * Names join with dots into state-dict keys that follow PyTorch ({@code blocks.0.attn.qkv.weight}),
 * so checkpoints map onto PyTorch and Hugging Face names. Subclasses register what they own in
 * their constructor with {@link #parameter}, {@link #buffer(String, Tensor, boolean)} and
 * {@link #module}; the forward signature is theirs to choose ({@link Layer} fixes the common one).
 */
public abstract class Module {
    private final Map<String, Parameter> parameters = new LinkedHashMap<>();
    private final Map<String, Tensor> buffers = new LinkedHashMap<>();
    private final Set<String> transientBuffers = new java.util.HashSet<>();
    private final Map<String, Module> children = new LinkedHashMap<>();
    private boolean training = true;

    // ---- registration ---------------------------------------------------------------------------

    /** Registers a parameter initialised to {@code initial} and returns it. */
    protected final Parameter parameter(String name, Tensor initial) {
        return parameter(name, new Parameter(initial));
    }

    /** Registers an existing parameter (weight tying: one parameter under two names). */
    protected final Parameter parameter(String name, Parameter parameter) {
        checkName(name);
        parameters.put(name, parameter);
        return parameter;
    }

    /** Registers a buffer: state that is not trained, saved in the state dict when {@code persistent}. */
    protected final Tensor buffer(String name, Tensor value, boolean persistent) {
        checkName(name);
        buffers.put(name, value.detach());
        if (!persistent) transientBuffers.add(name);
        return value;
    }

    /** The current value of a registered buffer (it changes when the module moves backend). */
    protected final Tensor buffer(String name) {
        Tensor t = buffers.get(name);
        if (t == null) throw new IllegalArgumentException(getClass().getSimpleName() + ": no buffer named '" + name + "'");
        return t;
    }

    /** Replaces a registered buffer's value (e.g. running statistics). */
    protected final void setBuffer(String name, Tensor value) {
        buffer(name);
        buffers.put(name, value.detach());
    }

    /** Registers a submodule and returns it. */
    protected final <M extends Module> M module(String name, M module) {
        checkName(name);
        children.put(name, module);
        return module;
    }

    /**
     * Registers {@code inner} as a transparent child: its parameters and buffers keep their own
     * names, without a prefix. For wrappers such as {@link Checkpointed} that must not change
     * state-dict keys.
     */
    protected final <M extends Module> M wrap(M inner) {
        if (children.containsKey("")) throw new IllegalArgumentException(getClass().getSimpleName() + ": already wraps a module");
        children.put("", inner);
        return inner;
    }

    /** Removes the transparent child {@link #wrap} registered and returns it; null when there is none. */
    protected final Module unwrap() { return children.remove(""); }

    private void checkName(String name) {
        if (name.isEmpty() || name.contains(".")) {
            throw new IllegalArgumentException(getClass().getSimpleName() + ": name '" + name + "' must be non-empty without dots");
        }
        if (parameters.containsKey(name) || buffers.containsKey(name) || children.containsKey(name)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + ": '" + name + "' is already registered");
        }
    }

    // ---- traversal ------------------------------------------------------------------------------

    /** Direct submodules by name, in registration order. */
    public final Map<String, Module> children() { return Collections.unmodifiableMap(children); }

    /** This module ("") and every descendant, by dotted name (a wrapped module shares its wrapper's name and is left out). */
    public final Map<String, Module> namedModules() {
        Map<String, Module> out = new LinkedHashMap<>();
        for (Named n : walk()) out.putIfAbsent(n.prefix(), n.module());
        return out;
    }

    /** This module and every descendant, wrapped ones included, parents first. */
    public final List<Module> modules() { return walk().stream().map(Named::module).toList(); }

    /** Every module in the tree with its key prefix, wrapped ones included. */
    private List<Named> walk() {
        List<Named> out = new ArrayList<>();
        collect("", this, out);
        return out;
    }

    private record Named(String prefix, Module module) {}

    private static void collect(String prefix, Module m, List<Named> out) {
        out.add(new Named(prefix, m));
        m.children.forEach((name, child) -> collect(join(prefix, name), child, out));
    }

    /** Every parameter by dotted name; a tied parameter appears once, under its first name. */
    public final Map<String, Parameter> namedParameters() {
        Map<String, Parameter> out = new LinkedHashMap<>();
        Set<Parameter> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Named n : walk()) n.module().parameters.forEach((name, p) -> {
            if (seen.add(p)) out.put(join(n.prefix(), name), p);
        });
        return out;
    }

    public final List<Parameter> parameters() { return new ArrayList<>(namedParameters().values()); }

    /** Parameters that are not frozen: what an optimizer should update. */
    public final List<Parameter> trainableParameters() {
        return parameters().stream().filter(p -> !p.frozen()).toList();
    }

    /** Number of parameter elements (tied parameters counted once). */
    public final long parameterCount() {
        return parameters().stream().mapToLong(Parameter::numel).sum();
    }

    public final long trainableParameterCount() {
        return trainableParameters().stream().mapToLong(Parameter::numel).sum();
    }

    // ---- state dict -----------------------------------------------------------------------------

    /**
     * Parameters and persistent buffers by dotted key, in registration order. A tied parameter
     * appears under each of its names, as in PyTorch. The tensors are live: an optimizer step
     * changes them in place, so clone them to keep a snapshot.
     */
    public final Map<String, Tensor> stateDict() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        walk().forEach(n -> {
            Module m = n.module();
            String prefix = n.prefix();
            m.parameters.forEach((name, p) -> out.put(join(prefix, name), p.value().detach()));
            m.buffers.forEach((name, b) -> {
                if (!m.transientBuffers.contains(name)) out.put(join(prefix, name), b);
            });
        });
        return out;
    }

    /**
     * Loads parameters and persistent buffers from {@code state}. Every missing, unexpected and
     * mis-shaped key is collected first; in strict mode any of them throws a
     * {@link StateDictMismatchException} listing all and nothing is changed. Otherwise the
     * matching keys are loaded and the report returned. Values are cast to the parameter's dtype
     * and moved to its backend.
     */
    public final LoadReport loadStateDict(Map<String, Tensor> state, boolean strict) {
        Map<String, Slot> slots = slots();
        List<String> missing = new ArrayList<>(), unexpected = new ArrayList<>();
        List<LoadReport.Mismatch> mismatched = new ArrayList<>();
        for (var e : slots.entrySet()) {
            Tensor given = state.get(e.getKey());
            if (given == null) missing.add(e.getKey());
            else if (!java.util.Arrays.equals(given.shape(), e.getValue().current().shape())) {
                mismatched.add(new LoadReport.Mismatch(e.getKey(), e.getValue().current().shape(), given.shape()));
            }
        }
        for (String key : state.keySet()) if (!slots.containsKey(key)) unexpected.add(key);
        LoadReport report = new LoadReport(missing, unexpected, mismatched);
        if (strict && !report.isClean()) throw new StateDictMismatchException(getClass().getSimpleName(), report);
        checkTiedCopiesAgree(slots, state);
        Set<String> bad = new java.util.HashSet<>();
        mismatched.forEach(m -> bad.add(m.key()));
        for (var e : slots.entrySet()) {
            Tensor given = state.get(e.getKey());
            if (given != null && !bad.contains(e.getKey())) e.getValue().load(given);
        }
        return report;
    }

    /**
     * Two keys of one tied parameter (an LM's {@code lm_head.weight} and its embedding) given
     * different values: which to keep would be a guess, so the load is refused naming both.
     */
    private static void checkTiedCopiesAgree(Map<String, Slot> slots, Map<String, Tensor> state) {
        Map<Parameter, String> first = new java.util.IdentityHashMap<>();
        for (var e : slots.entrySet()) {
            Parameter p = e.getValue().parameter();
            Tensor given = state.get(e.getKey());
            if (p == null || given == null) continue;
            String earlier = first.putIfAbsent(p, e.getKey());
            if (earlier == null) continue;
            Tensor other = state.get(earlier);
            if (other == given || !java.util.Arrays.equals(other.shape(), given.shape())) continue;
            Tensor a = other.to(dev.symbiont.core.DType.FLOAT32), b = given.to(dev.symbiont.core.DType.FLOAT32);
            if (b.backend() != a.backend()) b = b.to(a.backend());
            if (a.eq(b).mean().item() != 1.0) {
                throw new IllegalArgumentException("loadStateDict: '" + earlier + "' and '" + e.getKey() + "' are one tied parameter, "
                        + "but the state dict gives them different values");
            }
        }
    }

    /** One loadable entry: a parameter or a persistent buffer of some module. */
    private record Slot(Module owner, String name, Parameter parameter) {
        Tensor current() { return parameter != null ? parameter.value() : owner.buffers.get(name); }

        void load(Tensor given) {
            Tensor current = current();
            Tensor value = given.dtype() == current.dtype() ? given : given.to(current.dtype());
            if (value.backend() != current.backend()) value = value.to(current.backend());
            // into the parameter's own storage when it can (torch's param.copy_): no second copy of
            // the weights while a checkpoint loads
            if (parameter != null && value.backend() == current.backend()) parameter.update(value);
            else if (parameter != null) parameter.replace(value.contiguous());
            // A private copy, as parameters get: buffers updated in place (batch norm's running
            // statistics) must not write into the caller's state dict.
            else owner.buffers.put(name, (value == given ? value.clone() : value).detach());
        }
    }

    private Map<String, Slot> slots() {
        Map<String, Slot> out = new LinkedHashMap<>();
        walk().forEach(n -> {
            Module m = n.module();
            String prefix = n.prefix();
            m.parameters.forEach((name, p) -> out.put(join(prefix, name), new Slot(m, name, p)));
            m.buffers.forEach((name, b) -> {
                if (!m.transientBuffers.contains(name)) out.put(join(prefix, name), new Slot(m, name, null));
            });
        });
        return out;
    }

    // ---- modes and placement --------------------------------------------------------------------

    /** Training mode (dropout active) for this module and all descendants; returns this. */
    public Module train() { return setTraining(true); }

    /** Evaluation mode (dropout off) for this module and all descendants; returns this. */
    public Module eval() { return setTraining(false); }

    private Module setTraining(boolean on) {
        walk().forEach(n -> n.module().training = on);
        return this;
    }

    public final boolean isTraining() { return training; }

    /** Moves every parameter and buffer to {@code backend} (gradients are dropped); returns this. */
    public Module to(Backend backend) {
        for (Parameter p : parameters()) {
            if (p.value().backend() != backend) p.replace(p.value().to(backend));
        }
        for (Named n : walk()) {
            n.module().buffers.replaceAll((name, b) -> b.backend() == backend ? b : b.to(backend));
        }
        return this;
    }

    /** Moves every parameter and buffer to the device a string names ({@code "cpu"}, {@code "cuda:1"}); returns this. */
    public Module to(String device) { return to(Backends.get(device)); }

    /** Freezes every parameter of this module and its descendants (no gradients, no updates). */
    public final void freeze() { parameters().forEach(p -> p.freeze(true)); }

    public final void unfreeze() { parameters().forEach(p -> p.freeze(false)); }

    /** Clears the gradient of every parameter. */
    public final void zeroGrad() { parameters().forEach(Parameter::zeroGrad); }

    private static String join(String prefix, String name) {
        return prefix.isEmpty() ? name : name.isEmpty() ? prefix : prefix + "." + name;
    }

    /** The module tree with each module's own parameter shapes, like PyTorch's repr. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        describe(sb, "", 0);
        return sb.toString();
    }

    /** One line describing this module's configuration, e.g. "in=64, out=32". Override to add detail. */
    protected String extraRepr() { return ""; }

    private void describe(StringBuilder sb, String name, int depth) {
        sb.append("  ".repeat(depth));
        if (!name.isEmpty()) sb.append(name).append(": ");
        else if (depth > 0) sb.append("(wraps) ");
        sb.append(getClass().getSimpleName()).append('(').append(extraRepr()).append(")\n");
        children.forEach((n, c) -> c.describe(sb, n, depth + 1));
    }
}
