package dev.symbiont.nn;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;

/** A lookup table (num, dim) ~ N(0, 1), as torch.nn.Embedding. */
public final class Embedding extends Layer {
    private final int num, dim;
    private final Parameter weight;

    public Embedding(int num, int dim) { this(num, dim, Seed.generator()); }

    public Embedding(int num, int dim, Generator g) {
        if (num <= 0 || dim <= 0) throw new IllegalArgumentException("Embedding: sizes must be positive, got num=" + num + ", dim=" + dim);
        this.num = num;
        this.dim = dim;
        this.weight = parameter("weight", Init.normal(g, 0, 1, num, dim));
    }

    /**
     * ids: integer tensor of any shape → (ids..., dim). A table kept in bfloat16/float16 (a
     * checkpoint's stored precision) gives float32 rows: the model computes in float32.
     */
    @Override
    public Tensor forward(Tensor ids) {
        Tensor rows = Tensor.embedding(weight.value(), ids);
        return rows.dtype().isHalf() ? rows.to(DType.FLOAT32) : rows;
    }

    public Parameter weight() { return weight; }

    @Override
    protected String extraRepr() { return num + ", " + dim; }
}
