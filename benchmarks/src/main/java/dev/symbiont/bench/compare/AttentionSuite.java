package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.attention.AttentionKernels;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Scaled-dot-product attention, causal, forward + backward, batch 1, 8 heads of 64, against the
 * sequence length ({@code attention}): the backend's FlashAttention kernels ("flash": tiles and
 * an online softmax, never the L×L matrix) against the attention family forced to its
 * reference ("reference": the scores materialised, softmax, then the product). Median time and
 * peak memory above q, k, v and the output gradient.
 */
final class AttentionSuite implements Suite {
    static final String SUITE = "attention";
    static final int HEADS = 8, HEAD_DIM = 64;

    @Override
    public String id() { return "attention"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        for (String impl : List.of("flash", "reference")) {
            for (int len : sizes.attentionLengths()) {
                out.add(new Measurement(SUITE, impl, len, "attention: " + impl + " L=" + len, c -> {
                    String skip = c.tooSlow(SUITE, impl, len, 2);
                    return List.of(skip != null ? c.missing(SUITE, impl, len, skip) : measure(c, impl, len));
                }));
            }
        }
        return out;
    }

    private static Point measure(MeasureContext c, String impl, int len) {
        Generator g = new Generator(5);
        Tensor q = Tensor.randn(g, 1, HEADS, len, HEAD_DIM).requiresGrad(true), k = Tensor.randn(g, 1, HEADS, len, HEAD_DIM).requiresGrad(true),
                v = Tensor.randn(g, 1, HEADS, len, HEAD_DIM).requiresGrad(true), gradOut = Tensor.randn(g, 1, HEADS, len, HEAD_DIM);
        Runnable step = () -> {
            q.zeroGrad();
            k.zeroGrad();
            v.zeroGrad();
            Tensor.scaledDotProductAttention(q, k, v, null, true).backward(gradOut);
        };
        try (Scope kernels = impl.equals("reference") ? FusedKernels.forceReference(AttentionKernels.FAMILY) : () -> { }) {
            double s = c.stepSeconds(SUITE + " " + impl, step);
            long peak = c.peakBytes(step);
            return c.point(SUITE, impl, len, Map.of("ms", s * 1e3, "peak_mib", MeasureContext.mib(peak)));
        }
    }
}
