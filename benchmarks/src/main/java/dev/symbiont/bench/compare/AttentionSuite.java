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
 * peak memory above q, k, v and the output gradient. Beside it ({@code attention.heads}), the
 * flash kernels at one length and a fixed width of {@value #HEADS_WIDTH} split into 1, 2, 4 and 8
 * heads: the same FLOPs, so the time says whether heads are independent, parallel work.
 */
final class AttentionSuite implements Suite {
    static final String SUITE = "attention";
    static final int HEADS = 8, HEAD_DIM = 64;
    static final String HEADS_SUITE = "attention.heads";
    static final int HEADS_WIDTH = 256;
    static final int[] HEAD_COUNTS = {1, 2, 4, 8};

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
        int len = headsLength(sizes);
        for (int heads : HEAD_COUNTS) {
            out.add(new Measurement(HEADS_SUITE, "flash", heads, "attention: " + heads + (heads == 1 ? " head" : " heads") + " of " + HEADS_WIDTH / heads + ", L=" + len,
                    c -> List.of(c.point(HEADS_SUITE, "flash", heads, Map.of("ms", 1e3 * c.stepSeconds(SUITE + " flash",
                            step(heads, HEADS_WIDTH / heads, len)), "seq", (double) len)))));
        }
        return out;
    }

    /** The length of the heads sweep: the third of the attention lengths (1024 in the quick and full sizes). */
    static int headsLength(Sizes sizes) {
        int[] lengths = sizes.attentionLengths();
        return lengths[Math.min(2, lengths.length - 1)];
    }

    /** One causal forward + backward of batch 1, {@code heads} of {@code headDim}, length {@code len}. */
    private static Runnable step(int heads, int headDim, int len) {
        Generator g = new Generator(5);
        Tensor q = Tensor.randn(g, 1, heads, len, headDim).requiresGrad(true), k = Tensor.randn(g, 1, heads, len, headDim).requiresGrad(true),
                v = Tensor.randn(g, 1, heads, len, headDim).requiresGrad(true), gradOut = Tensor.randn(g, 1, heads, len, headDim);
        return () -> {
            q.zeroGrad();
            k.zeroGrad();
            v.zeroGrad();
            Tensor.scaledDotProductAttention(q, k, v, null, true).backward(gradOut);
        };
    }

    private static Point measure(MeasureContext c, String impl, int len) {
        Runnable step = step(HEADS, HEAD_DIM, len);
        try (Scope kernels = impl.equals("reference") ? FusedKernels.forceReference(AttentionKernels.FAMILY) : () -> { }) {
            double s = c.stepSeconds(SUITE + " " + impl, step);
            long peak = c.peakBytes(step);
            return c.point(SUITE, impl, len, Map.of("ms", s * 1e3, "peak_mib", MeasureContext.mib(peak)));
        }
    }
}
