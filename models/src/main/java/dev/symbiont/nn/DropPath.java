package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;

/**
 * Stochastic depth (Huang et al. 2016) as timm's DropPath: in training, each sample of the
 * batch (dim 0) is zeroed whole with probability p and the kept ones are scaled by 1/(1 − p),
 * so a residual branch wrapped in it is dropped per sample; the identity in eval mode. Masks are
 * drawn on x's backend from the layer's own seeded generator, like {@link Dropout}'s.
 */
public final class DropPath extends Layer implements Stochastic {
    private final double p;
    private final Generator generator;

    public DropPath(double p) { this(p, new Generator(Seed.generator().nextLong())); }

    public DropPath(double p, Generator generator) {
        if (!(p >= 0 && p < 1)) throw new IllegalArgumentException("DropPath: p must be in [0, 1), got " + p);
        this.p = p;
        this.generator = generator;
    }

    /** x: (N, *) → same shape. */
    @Override
    public Tensor forward(Tensor x) {
        if (!isTraining() || p == 0 || x.numel() == 0) return x;
        int n = x.size(0);
        Tensor keep;
        try (var scope = Backends.use(x.backend())) {
            keep = Tensor.rand(generator, n, 1).ge(p); // one draw per sample, made on x's backend
        }
        // (N, rest) times an (N, 1) column: the broadcast the CPU's binary kernel takes in place.
        return x.reshape(n, x.numel() / n).mul(keep.div(1 - p)).reshape(x.shape());
    }

    /**
     * Rates for {@code blocks} blocks rising linearly from 0 to {@code last}: timm's
     * {@code torch.linspace(0, drop_path_rate, depth)} (one block gets 0).
     */
    public static double[] linearRates(double last, int blocks) {
        double[] rates = new double[blocks];
        for (int k = 0; k < blocks; k++) rates[k] = blocks == 1 ? 0 : last * k / (blocks - 1);
        return rates;
    }

    @Override
    public Generator generator() { return generator; }

    @Override
    protected String extraRepr() { return "drop_prob=" + p; }
}
