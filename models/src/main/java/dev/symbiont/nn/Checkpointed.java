package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

/**
 * Wraps a layer so its activations are recomputed in backward instead of stored
 * ({@link Checkpoint}). Parameters keep the wrapped layer's names: wrapping does not change
 * state-dict keys.
 */
public final class Checkpointed extends Layer {
    private final Layer inner;

    public Checkpointed(Layer inner) {
        this.inner = inner;
        wrap(inner);
    }

    @Override
    public Tensor forward(Tensor x) { return Checkpoint.run(inner, inner::forward, x); }

    public Layer inner() { return inner; }
}
