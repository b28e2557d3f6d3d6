package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

/** Flattens dims startDim..endDim into one, torch.nn.Flatten (defaults 1 and −1: (N, C, H, W) → (N, C·H·W)). */
public final class Flatten extends Layer {
    private final int startDim, endDim;

    public Flatten() { this(1, -1); }

    public Flatten(int startDim, int endDim) {
        this.startDim = startDim;
        this.endDim = endDim;
    }

    /** x: (d0, …, d_start, …, d_end, …) → (d0, …, d_start·…·d_end, …); a view when x's strides allow. */
    @Override
    public Tensor forward(Tensor x) { return x.flatten(startDim, endDim); }

    @Override
    protected String extraRepr() { return "start_dim=" + startDim + ", end_dim=" + endDim; }
}
