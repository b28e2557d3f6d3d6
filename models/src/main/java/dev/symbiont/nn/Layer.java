package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

/** A module with one tensor in and one tensor out: what {@link Sequential} chains. */
public abstract class Layer extends Module {
    /** Applies the layer; shapes are documented by each subclass. */
    public abstract Tensor forward(Tensor input);
}
