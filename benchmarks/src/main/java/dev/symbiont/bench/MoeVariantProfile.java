package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.moe.MoeConfig;
import dev.symbiont.nn.moe.MoeFeedForward;
import dev.symbiont.nn.moe.RouterLosses;
import dev.symbiont.nn.moe.TopKRouter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Ways of computing {@link MoeBenchmark}'s dropless MoE layer against each other in one JVM,
 * alternating, at the benchmark's shapes: each a forward written with the moe family's public
 * ops over one {@link MoeFeedForward}'s router and experts, timed forward and forward +
 * backward (medians of the rounds' best of three, ms). A variant that differs from the layer
 * in one step measures that step's change without the machine's drift between runs.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.MoeVariantProfile [rounds]}
 */
public final class MoeVariantProfile {
    private static final int TOKENS = 2048;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        try (var scope = Backends.use(new CpuBackend())) {
            Generator g = new Generator(7);
            MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(MoeBenchmark.D_MODEL, MoeBenchmark.EXPERTS, MoeBenchmark.TOP_K,
                    MoeBenchmark.HIDDEN), g);
            Tensor x = Tensor.randn(g, TOKENS, MoeBenchmark.D_MODEL).requiresGrad(true);
            Map<String, Tensor> grads = new java.util.HashMap<>(); // one output gradient per output shape
            Experts w = new Experts(moe);
            Tensor ids = moe.gate().route(x).expertIds();
            System.out.println("group sizes " + Arrays.toString(
                    Moe.permute(x, ids, MoeBenchmark.EXPERTS, MoeKernels.DROPLESS).groupSizes().toLongArray()));
            Map<String, UnaryOperator<Tensor>> variants = new java.util.LinkedHashMap<>();
            variants.put("layer", moe::forward);
            variants.put("silu, mul", t -> w.forward(t, false));
            variants.put("swiglu", t -> w.forward(t, true));
            // Each GEMM alone against the dense FFN's GEMM of the same FLOPs.
            MoeKernels.Permuted p = Moe.permute(x.detach(), ids, MoeBenchmark.EXPERTS, MoeKernels.DROPLESS);
            Tensor rows = p.rows().requiresGrad(true), hidden = Tensor.randn(g, rows.size(0), MoeBenchmark.HIDDEN).requiresGrad(true);
            int active = MoeBenchmark.TOP_K * MoeBenchmark.HIDDEN;
            Tensor wUp = Tensor.randn(g, active, MoeBenchmark.D_MODEL).mul(0.05).detach().requiresGrad(true);
            Tensor wDown = Tensor.randn(g, MoeBenchmark.D_MODEL, active).mul(0.05).detach().requiresGrad(true);
            Tensor hiddenDense = Tensor.randn(g, TOKENS, active).requiresGrad(true);
            // The dense equal-active FFN as ops, with its gate composed (as FeedForward runs it) or fused.
            Tensor w1d = Tensor.randn(g, active, MoeBenchmark.D_MODEL).mul(0.05).detach().requiresGrad(true);
            Tensor w3d = Tensor.randn(g, active, MoeBenchmark.D_MODEL).mul(0.05).detach().requiresGrad(true);
            variants.put("dense", t -> denseFfn(t, w1d, w3d, wDown, false));
            variants.put("dense swiglu", t -> denseFfn(t, w1d, w3d, wDown, true));
            variants.put("grouped w1", t -> Moe.groupedMatmul(rows, Experts.transposed(w.w1), p.groupSizes()));
            variants.put("linear w1", t -> Linears.linear(x, wUp, null));
            variants.put("grouped w2", t -> Moe.groupedMatmul(hidden, Experts.transposed(w.w2), p.groupSizes()));
            variants.put("linear w2", t -> Linears.linear(hiddenDense, wDown, null));
            List<String> names = new ArrayList<>(variants.keySet());
            double[][] fwd = new double[names.size()][rounds], step = new double[names.size()][rounds];
            for (int r = -2; r < rounds; r++) {
                for (int v = 0; v < names.size(); v++) {
                    UnaryOperator<Tensor> f = variants.get(names.get(v));
                    double a = BestOfThree.millis(() -> {
                        try (var noGrad = GradMode.disabled()) {
                            f.apply(x);
                        }
                    });
                    double b = BestOfThree.millis(() -> {
                        Tensor y = f.apply(x);
                        y.backward(grads.computeIfAbsent(Arrays.toString(y.shape()), k -> Tensor.randn(g, y.shape())));
                        moe.zeroGrad();
                        for (Tensor t : new Tensor[] {x, rows, hidden, wUp, wDown, hiddenDense, w1d, w3d}) t.zeroGrad();
                    });
                    if (r >= 0) {
                        fwd[v][r] = a;
                        step[v][r] = b;
                    }
                }
            }
            for (int v = 0; v < names.size(); v++) {
                System.out.printf(Locale.ROOT, "%-12s forward %7.1f ms   forward + backward %7.1f ms%n", names.get(v),
                        median(fwd[v]), median(step[v]));
            }
        }
    }

    private static Tensor denseFfn(Tensor x, Tensor w1, Tensor w3, Tensor w2, boolean fusedSwiglu) {
        Tensor a = Linears.linear(x, w1, null), b = Linears.linear(x, w3, null);
        return Linears.linear(fusedSwiglu ? Moe.swiglu(a, b) : a.silu().mul(b), w2, null);
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** The layer's router and expert weights, and its forward as the family's ops with a choice per step. */
    private static final class Experts {
        private final MoeFeedForward moe;
        final List<Tensor> w1 = new ArrayList<>(), w2 = new ArrayList<>(), w3 = new ArrayList<>();

        Experts(MoeFeedForward moe) {
            this.moe = moe;
            Map<String, Parameter> p = moe.namedParameters();
            for (int e = 0; e < moe.config().experts(); e++) {
                w1.add(p.get("experts." + e + ".w1.weight").value());
                w2.add(p.get("experts." + e + ".w2.weight").value());
                w3.add(p.get("experts." + e + ".w3.weight").value());
            }
        }

        /** x (T, d) → (T, d), as {@link MoeFeedForward#forward} with the aux losses, dropless. */
        Tensor forward(Tensor x, boolean fusedSwiglu) {
            int experts = moe.config().experts();
            TopKRouter.Routing r = moe.gate().route(x);
            MoeKernels.Permuted p = Moe.permute(x, r.expertIds(), experts, MoeKernels.DROPLESS);
            Tensor h1 = Moe.groupedMatmul(p.rows(), transposed(w1), p.groupSizes());
            Tensor h3 = Moe.groupedMatmul(p.rows(), transposed(w3), p.groupSizes());
            Tensor h = fusedSwiglu ? Moe.swiglu(h1, h3) : h1.silu().mul(h3);
            Tensor y = Moe.combine(Moe.groupedMatmul(h, transposed(w2), p.groupSizes()), r.weights(), p.permutation());
            RouterLosses.expertLoad(r.expertIds(), experts);
            RouterLosses.loadBalancing(r.probs(), r.expertIds());
            RouterLosses.zLoss(r.logits());
            return y;
        }

        static List<Tensor> transposed(List<Tensor> ws) {
            return ws.stream().map(Tensor::t).toList();
        }
    }
}
