package dev.symbiont.optim;

import dev.symbiont.core.Tensor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an optimizer keeps for one parameter: how many updates it has had and named buffers
 * shaped like it ({@code exp_avg}, {@code momentum_buffer}). Created on the parameter's first
 * update, as torch.optim creates its per-parameter state lazily.
 */
public final class ParamState {
    private long step;
    private final Map<String, Tensor> buffers = new LinkedHashMap<>();

    /** Updates applied so far, counting the one in progress during {@link Optimizer#update}. */
    public long step() { return step; }

    /** The named buffer, or null before it is first set. */
    public Tensor buffer(String name) { return buffers.get(name); }

    public void setBuffer(String name, Tensor value) { buffers.put(name, value); }

    /** The buffers by name (unmodifiable view). */
    public Map<String, Tensor> buffers() { return Collections.unmodifiableMap(buffers); }

    long advance() { return ++step; }

    void setStep(long step) { this.step = step; }
}
