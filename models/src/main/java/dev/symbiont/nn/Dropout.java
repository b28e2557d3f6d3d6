package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;

/**
 * Zeroes each element with probability p during training and scales the rest by 1/(1-p);
 * the identity in eval mode. Masks are drawn on x's backend (Philox, {@link Tensor#rand}) from
 * its own seeded generator, whose state activation checkpointing replays and checkpoints save.
 */
public final class Dropout extends Layer implements Stochastic {
    private final double p;
    private final Generator generator;

    public Dropout(double p) { this(p, new Generator(Seed.generator().nextLong())); }

    public Dropout(double p, Generator generator) {
        if (!(p >= 0 && p < 1)) throw new IllegalArgumentException("Dropout: p must be in [0, 1), got " + p);
        this.p = p;
        this.generator = generator;
    }

    /** x: any shape → same shape. */
    @Override
    public Tensor forward(Tensor x) {
        if (!isTraining() || p == 0) return x;
        Tensor keep;
        try (var scope = dev.symbiont.core.backend.Backends.use(x.backend())) {
            keep = Tensor.rand(generator, x.shape()).ge(p); // drawn on x's backend, nothing uploaded
        }
        return x.mul(keep.div(1 - p));
    }

    /** The generator masks are drawn from (its state is part of a training checkpoint). */
    @Override
    public Generator generator() { return generator; }

    @Override
    protected String extraRepr() { return "p=" + p; }
}
