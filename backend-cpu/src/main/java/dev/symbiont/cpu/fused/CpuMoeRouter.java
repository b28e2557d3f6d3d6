package dev.symbiont.cpu.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.moe.MoeKernels.RouteGrads;
import dev.symbiont.core.fused.moe.MoeKernels.Routed;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.RouterKernel;
import dev.symbiont.cpu.kernels.Rows;

/**
 * The moe family's router on the CPU: {@link RouterKernel}'s one pass per token forward and
 * backward, and the gate's weight gradient dhᵀ·x (E × d, k = T) on the backend's GEMM. The
 * small per-token tensors (gradients, probabilities) are read through copies, the input rows in place.
 */
final class CpuMoeRouter {
    private static final String OP = "moe_route";

    private final CpuTensors io;
    private final Gemm gemm;

    CpuMoeRouter(CpuTensors io, Gemm gemm) {
        this.io = io;
        this.gemm = gemm;
    }

    Routed forward(Tensor x, Tensor gateWeight, int k, boolean renormalize, boolean vector) {
        int tokens = x.size(0), d = x.size(1), experts = gateWeight.size(0);
        Rows rows = io.rows(OP, x, tokens, d);
        float[] w = io.copyOf(gateWeight);
        HeapStorage logits = io.emptyFloats(tokens * experts), probs = io.emptyFloats(tokens * experts);
        HeapStorage weights = io.emptyFloats(tokens * k), lse = io.emptyFloats(tokens);
        HeapStorage ids = io.newLongs(tokens * k);
        RouterKernel.forward(vector, rows, w, tokens, d, experts, k, renormalize,
                logits.floats(), probs.floats(), ids.longs(), weights.floats(), lse.floats());
        return new Routed(Tensor.of(logits, tokens, experts), Tensor.of(probs, tokens, experts),
                Tensor.of(ids, tokens, k), Tensor.of(weights, tokens, k),
                Tensor.of(lse, tokens));
    }

    RouteGrads backward(Tensor dLogits, Tensor dProbs, Tensor dWeights, Tensor dLogsumexp, Tensor x, Tensor gateWeight,
                        Routed routed, boolean renormalize, boolean vector) {
        int tokens = x.size(0), d = x.size(1), experts = gateWeight.size(0), k = routed.expertIds().size(1);
        Rows rows = io.rows(OP, x, tokens, d);
        float[] w = io.copyOf(gateWeight);
        float[] dh = new float[tokens * experts]; // scratch: every element written, read by the GEMM below
        HeapStorage dx = io.emptyFloats(tokens * d), dw = io.emptyFloats(experts * d);
        RouterKernel.backward(vector, copy(dLogits), copy(dProbs), copy(dWeights), copy(dLogsumexp),
                io.copyOf(routed.probs()), CpuTensors.longsOf(OP, routed.expertIds()), tokens, d, experts, k, renormalize, w, dh, dx.floats());
        // dWg = dhᵀ·x: A = dhᵀ read through its strides (row e of dhᵀ is column e of dh)
        gemm.sgemm(experts, d, tokens, dh, 0, 1, experts, rows.data(), rows.offset(), rows.stride(), 1, dw.floats(), 0, d);
        return new RouteGrads(Tensor.of(dx, tokens, d), Tensor.of(dw, experts, d));
    }

    private float[] copy(Tensor t) {
        return t == null ? null : io.copyOf(t);
    }
}
