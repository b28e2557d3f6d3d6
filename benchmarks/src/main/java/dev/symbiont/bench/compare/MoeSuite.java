package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.FeedForward;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.moe.MoeConfig;
import dev.symbiont.nn.moe.MoeFeedForward;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The mixture-of-experts layer (d 128, SwiGLU experts of hidden {@link LmFamily#expertHidden}
 * at k = 2, dropless) forward + backward on a batch of tokens, against the expert count E at
 * top-k 2 ({@code moe.experts}) and against k at E = 8 ({@code moe.topk}): parameters in total
 * and active per token (router + k experts), the FLOPs the profiler counts for the call, and
 * the median time. Beside each, a dense SwiGLU feed-forward with the MoE's active parameters
 * (hidden k·h), the compute a token would cost without routing ({@code dense} series).
 */
final class MoeSuite implements Suite {
    static final String EXPERTS = "moe.experts", TOPK = "moe.topk";

    @Override
    public String id() { return "moe"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        for (int e : sizes.experts()) {
            out.add(new Measurement(EXPERTS, "moe", e, "moe: E=" + e + " k=" + LmFamily.TOP_K, c -> List.of(moe(c, EXPERTS, e, LmFamily.TOP_K, e))));
        }
        for (int k : sizes.topKs()) {
            out.add(new Measurement(TOPK, "moe", k, "moe: E=" + LmFamily.EXPERTS + " k=" + k, c -> List.of(moe(c, TOPK, LmFamily.EXPERTS, k, k))));
            out.add(new Measurement(TOPK, "dense", k, "moe: dense, hidden " + k + "·h", c -> List.of(dense(c, k))));
        }
        return out;
    }

    private static Point moe(MeasureContext c, String suite, int experts, int topK, double x) {
        int hidden = LmFamily.expertHidden(LmFamily.TOP_K), d = LmFamily.D_MODEL;
        MoeFeedForward layer = new MoeFeedForward(MoeConfig.of(d, experts, topK, hidden), new Generator(7));
        long total = layer.parameterCount();
        long expertParams = layer.namedParameters().entrySet().stream().filter(p -> p.getKey().startsWith("experts."))
                .mapToLong(p -> p.getValue().numel()).sum();
        long active = total - expertParams + expertParams / experts * topK;
        Map<String, Double> timing = time(c, layer);
        return c.point(suite, "moe", x, Map.of("params_total", (double) total, "params_active", (double) active, "experts", (double) experts,
                "top_k", (double) topK, "gflop", timing.get("gflop"), "ms", timing.get("ms")));
    }

    private static Point dense(MeasureContext c, int k) {
        int hidden = k * LmFamily.expertHidden(LmFamily.TOP_K);
        FeedForward ffn = new FeedForward(BlockConfig.of(LmFamily.D_MODEL, LmFamily.HEADS, hidden).withMlp(MlpKind.SWIGLU), new Generator(7));
        Map<String, Double> timing = time(c, ffn);
        double params = ffn.parameterCount();
        return c.point(TOPK, "dense", k, Map.of("params_total", params, "params_active", params, "gflop", timing.get("gflop"), "ms", timing.get("ms")));
    }

    /** {ms: median forward + backward, gflop: what the profiler counted for one}. */
    private static Map<String, Double> time(MeasureContext c, Layer layer) {
        Generator g = new Generator(8);
        Tensor x = Tensor.randn(g, c.sizes().moeTokens(), LmFamily.D_MODEL).requiresGrad(true);
        Tensor gradOut = Tensor.randn(g, c.sizes().moeTokens(), LmFamily.D_MODEL);
        Runnable step = () -> {
            x.zeroGrad();
            layer.zeroGrad();
            layer.forward(x).backward(gradOut);
        };
        double s = c.stepSeconds("moe " + layer.getClass().getSimpleName(), step);
        long flops;
        try (ProfilerSession session = Profiler.start("compare moe")) {
            step.run();
            c.backend().synchronize();
            session.close();
            flops = session.report().flops();
        }
        return Map.of("ms", s * 1e3, "gflop", flops / 1e9);
    }
}
