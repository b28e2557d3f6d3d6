package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;

/**
 * A pre-norm residual MLP block, x + W₂·GELU(W₁·LayerNorm(x)) — the feed-forward half of a
 * Transformer layer, and the unit the memory benchmarks stack.
 */
public final class ResidualMlpBlock extends Layer {
    private final LayerNorm norm;
    private final Linear up, down;
    private final Dropout dropout;

    public ResidualMlpBlock(int dim, int hidden, double dropout, Generator g) {
        this.norm = module("norm", new LayerNorm(dim));
        this.up = module("up", new Linear(dim, hidden, true, g));
        this.down = module("down", new Linear(hidden, dim, true, g));
        this.dropout = module("dropout", new Dropout(dropout, new Generator(g.nextLong())));
    }

    /** x: (..., dim) → (..., dim). */
    @Override
    public Tensor forward(Tensor x) {
        return x.add(dropout.forward(down.forward(up.forward(norm.forward(x)).gelu())));
    }
}
