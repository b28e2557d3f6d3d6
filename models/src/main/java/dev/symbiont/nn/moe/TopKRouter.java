package dev.symbiont.nn.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.Stochastic;

/**
 * The top-k router of a mixture of experts (Shazeer et al. 2017; Fedus et al. 2022, eq. 1):
 * <pre>
 *   h = x · Wgᵀ                         logits over E experts, Wg (E, d), no bias
 *   p = softmax(h)                      in float32, over all experts
 *   (g, e) = top-k(p)                   each token's k largest probabilities and their experts
 *   g ← g / Σ g                         renormalised (Mixtral), or kept as is (Switch, GShard)
 * </pre>
 * computed as the moe family's {@link Moe#route} (one pass per token on the CPU), always in
 * float32: under autocast the input is cast up first, as Switch's selective precision keeps the
 * router's softmax in float32. In training an optional multiplicative jitter (Switch §2.4) scales x by U(1 − ε, 1 + ε)
 * before the gate; the noise comes from this router's own generator, which activation
 * checkpointing replays ({@link Stochastic}). Its weight is the state-dict key {@code weight}
 * (Mixtral's {@code block_sparse_moe.gate.weight}).
 */
public final class TopKRouter extends Module implements Stochastic {
    private final int experts, k;
    private final boolean renormalize;
    private final double jitter;
    private final Parameter weight;
    private final Generator generator;

    /**
     * @param dModel      the token width d
     * @param experts     E ≥ 1
     * @param k           1 ≤ k ≤ E
     * @param renormalize whether the k weights are rescaled to sum to 1
     * @param jitter      ε ≥ 0 of the training-time input jitter (0: none)
     */
    public TopKRouter(int dModel, int experts, int k, boolean renormalize, double jitter, Generator g) {
        if (experts < 1) throw new IllegalArgumentException("TopKRouter: experts must be ≥ 1, got " + experts);
        Moe.checkTopK("TopKRouter", k, experts);
        if (!(jitter >= 0 && jitter < 1)) throw new IllegalArgumentException("TopKRouter: jitter must be in [0, 1), got " + jitter);
        this.experts = experts;
        this.k = k;
        this.renormalize = renormalize;
        this.jitter = jitter;
        this.weight = parameter("weight", Init.kaimingUniform(g, Math.sqrt(5), experts, dModel));
        this.generator = new Generator(g.nextLong());
    }

    /**
     * What the router decided for T tokens: logits and probs (T, E) float32, expertIds (T, k)
     * int64, weights (T, k) float32, and logsumexp (T) float32 of the logits (the z-loss's input).
     */
    public record Routing(Tensor logits, Tensor probs, Tensor expertIds, Tensor weights, Tensor logsumexp) {}

    /** x: (T, d) → the routing of each token. */
    public Routing route(Tensor x) {
        Tensor in = x;
        if (isTraining() && jitter > 0) {
            try (var scope = Backends.use(x.backend())) {
                in = x.mul(Tensor.rand(generator, x.shape()).mul(2 * jitter).add(1 - jitter));
            }
        }
        Tensor w = weight.value();
        if (in.dtype() != DType.FLOAT32) in = in.to(DType.FLOAT32);
        if (w.dtype() != DType.FLOAT32) w = w.to(DType.FLOAT32);
        MoeKernels.Routed r = Moe.route(in, w, k, renormalize);
        return new Routing(r.logits(), r.probs(), r.expertIds(), r.weights(), r.logsumexp());
    }

    public int experts() { return experts; }

    public int topK() { return k; }

    /** ε of the training-time input jitter, 0 for none. */
    public double jitter() { return jitter; }

    public Parameter weight() { return weight; }

    /** The generator the jitter is drawn from. */
    @Override
    public Generator generator() { return generator; }

    @Override
    protected String extraRepr() {
        return "experts=" + experts + ", k=" + k + ", renormalize=" + renormalize + (jitter > 0 ? ", jitter=" + jitter : "");
    }
}
