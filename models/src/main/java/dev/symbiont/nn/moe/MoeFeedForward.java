package dev.symbiont.nn.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.nn.Checkpoint;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.ModuleList;
import dev.symbiont.nn.ReportsMetrics;
import dev.symbiont.nn.block.ChannelMixer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A sparse mixture-of-experts feed-forward layer (Shazeer et al. 2017; Mixtral, Jiang et al. 2024, eq. 1-2):
 * <pre>
 *   (g, e) = TopKRouter(x)                         k experts and weights per token
 *   y_t    = Σ_{i &lt; k} g_ti · SwiGLU_{e_ti}(x_t)    SwiGLU_e(x) = W2_e(SiLU(W1_e x) ⊙ W3_e x)
 *          + Σ_s SharedSwiGLU_s(x_t)                shared experts, if any (Qwen-MoE; DeepSeekMoE, Dai et al. 2024, eq. 9)
 * </pre>
 * computed as the moe family's ops: {@link Moe#permute} groups the token slots by expert,
 * {@link Moe#groupedSwiglu} runs W1 and W3 over all experts with SwiGLU applied as their tiles
 * finish, W2 is one {@link Moe#groupedMatmul}, and
 * {@link Moe#combine} sums the weighted rows back in token order. With a capacity, a slot beyond
 * its expert's capacity is dropped: the token gets nothing from that expert (the residual carries it).
 *
 * <p>State-dict keys are Mixtral's under the block key {@code block_sparse_moe}:
 * {@code gate.weight} (E, d) and {@code experts.{e}.w1.weight} (hidden, d), {@code .w2.weight}
 * (d, hidden), {@code .w3.weight} (hidden, d); shared experts, which Mixtral has none of, are
 * {@code shared_experts.{s}.w1.weight} and so on.
 *
 * <p>Each forward leaves its auxiliary losses and routing statistics in {@link #lastAux()}, which
 * {@link #lastMetricValues()} reports as numbers for a trainer's metrics, on the backend. Under activation
 * checkpointing the losses are the segment's side outputs ({@link Checkpoint#sideOutputs}): their
 * gradients reach the router through backward's rerun, which leaves {@code lastAux} as the
 * forward left it.
 */
public final class MoeFeedForward extends ChannelMixer implements ReportsMetrics {
    private final MoeConfig config;
    private final TopKRouter gate;
    private final ModuleList<SwiGluExpert> experts;
    private final ModuleList<SwiGluExpert> sharedExperts;
    private Aux lastAux;

    public MoeFeedForward(MoeConfig c, Generator g) {
        this.config = c;
        this.gate = module("gate", new TopKRouter(c.dModel(), c.experts(), c.topK(), c.renormalize(), c.jitter(), g));
        List<SwiGluExpert> list = new ArrayList<>();
        for (int e = 0; e < c.experts(); e++) list.add(new SwiGluExpert(c.dModel(), c.hidden(), g));
        this.experts = module("experts", new ModuleList<>(list));
        List<SwiGluExpert> shared = new ArrayList<>();
        for (int s = 0; s < c.shared(); s++) shared.add(new SwiGluExpert(c.dModel(), c.hidden(), g));
        this.sharedExperts = shared.isEmpty() ? null : module("shared_experts", new ModuleList<>(shared));
    }

    /**
     * The auxiliary losses (scalars with autograd history to the router), the mean router probabilities and routing statistics of one forward.
     *
     * @param loadBalancing   Switch's E · Σ f_i · P_i ({@link RouterLosses#loadBalancing})
     * @param zLoss           ST-MoE's mean logsumexp² of the router logits
     * @param expertLoad      (E) the fraction of routed slots each expert was given, before capacity drops
     * @param meanProbs       (E) each expert's router probability averaged over the tokens, with autograd history
     *                        (the P of the balancing loss, which {@link RouterLosses#acrossLayers} averages over layers)
     * @param droppedFraction the fraction of the T·k slots that capacity dropped (0 when dropless)
     */
    public record Aux(Tensor loadBalancing, Tensor zLoss, Tensor expertLoad, Tensor meanProbs, double droppedFraction) {}

    /** x: (..., dModel) → (..., dModel), each token through its k experts. */
    @Override
    public Tensor forward(Tensor x) {
        int[] shape = x.shape();
        int d = config.dModel(), tokens = x.numel() / d, k = config.topK(), e = config.experts();
        Tensor flat = x.reshape(tokens, d);
        TopKRouter.Routing r = gate.route(flat);
        MoeKernels.Permuted p = Moe.permute(flat, r.expertIds(), e, config.dispatch().capacity(tokens, k, e));
        Tensor sizes = p.groupSizes();
        Tensor h = Moe.groupedSwiglu(p.rows(), weights(ex -> ex.w1), weights(ex -> ex.w3), sizes);
        Tensor y = Moe.combine(Moe.groupedMatmul(h, weights(ex -> ex.w2), sizes), r.weights(), p.permutation());
        Tensor load = RouterLosses.expertLoad(r.expertIds(), e);
        double dropped = tokens == 0 ? 0 : 1 - (double) p.keptRows() / ((long) tokens * k);
        // Under activation checkpointing the losses reach the rerun's router, and its rerun leaves lastAux alone.
        Tensor meanProbs = r.probs().mean(0, false);
        Checkpoint.sideOutputs(List.of(RouterLosses.loadBalancingOfMeans(load, meanProbs), RouterLosses.zLossOfLogsumexp(r.logsumexp()), meanProbs),
                losses -> lastAux = new Aux(losses.get(0), losses.get(1), load, losses.get(2), dropped));
        if (sharedExperts != null) for (SwiGluExpert s : sharedExperts) y = y.add(s.forward(flat));
        return y.reshape(shape);
    }

    /**
     * One projection of every expert, each (in, out): its Linear's (out, in) weight transposed, a
     * view. The grouped GEMM reads each in place and writes its gradient in the weight's own
     * layout, so nothing is stacked or copied per step.
     */
    private List<Tensor> weights(Function<SwiGluExpert, Linear> projection) {
        List<Tensor> ws = new ArrayList<>(experts.size());
        for (SwiGluExpert ex : experts) ws.add(projection.apply(ex).weight().value().t());
        return ws;
    }

    /** The losses and statistics of the last forward, or null before the first. */
    public Aux lastAux() { return lastAux; }

    /**
     * The routing's numbers, in this order: {@code expert_load_<e>} for each expert (the fractions
     * sum to 1), {@code max_load} (the busiest expert's share: 1/E when balanced, 1 when
     * collapsed), {@code dropped_fraction}, {@code load_balancing_loss} and {@code z_loss} (unweighted).
     */
    @Override
    public List<String> metricNames() {
        List<String> names = new ArrayList<>();
        for (int e = 0; e < config.experts(); e++) names.add("expert_load_" + e);
        names.addAll(List.of("max_load", "dropped_fraction", "load_balancing_loss", "z_loss"));
        return names;
    }

    /** The last forward's {@link #metricNames()} values, (E + 4) on the backend; null before the first forward. */
    @Override
    public Tensor lastMetricValues() {
        if (lastAux == null) return null;
        Tensor load = lastAux.expertLoad().detach();
        return Tensor.cat(List.of(load, load.amax(new int[] {0}, true),
                Creation.full(load.backend(), lastAux.droppedFraction(), DType.FLOAT32, 1),
                lastAux.loadBalancing().detach().reshape(1), lastAux.zLoss().detach().reshape(1)), 0);
    }

    /** The busiest expert's share, the number that shows a router collapsing. */
    @Override
    public List<String> headline() { return List.of("max_load"); }

    public MoeConfig config() { return config; }

    public TopKRouter gate() { return gate; }

    /** Expert e, for the per-token twin and for inspection. */
    public SwiGluExpert expert(int e) { return experts.get(e); }

    /** Shared expert s (of {@link MoeConfig#shared()}). */
    public SwiGluExpert sharedExpert(int s) {
        if (sharedExperts == null) throw new IndexOutOfBoundsException("MoeFeedForward: no shared experts");
        return sharedExperts.get(s);
    }

    @Override
    public String blockKey() { return "block_sparse_moe"; }

    /** Every expert's w2, the shared ones' included. */
    @Override
    public List<Linear> residualProjections() {
        List<Linear> out = new ArrayList<>();
        for (SwiGluExpert ex : experts) out.add(ex.w2);
        if (sharedExperts != null) for (SwiGluExpert ex : sharedExperts) out.add(ex.w2);
        return out;
    }

    @Override
    protected String extraRepr() {
        return "experts=" + config.experts() + ", k=" + config.topK() + ", hidden=" + config.hidden() + ", " + config.dispatch()
                + (config.shared() > 0 ? ", shared=" + config.shared() : "");
    }
}
