package dev.symbiont.bench;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.MaterializedAttention;
import dev.symbiont.cpu.CpuBackend;

/**
 * The CPU backend with scaled-dot-product attention on the materialised reference
 * ({@link MaterializedAttention}) instead of its FlashAttention kernels. Everything else — the
 * GEMM, the vectorised softmax-like passes — is the same, so a comparison isolates the kernel.
 */
public final class MaterializedAttentionBackend extends CpuBackend {

    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        return MaterializedAttention.forward(q, k, v, mask, causal, scale);
    }

    @Override
    public AttentionGrads attentionBackward(Tensor gradOut, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal,
                                            double scale, Tensor out, Tensor logsumexp) {
        return MaterializedAttention.backward(gradOut, q, k, v, mask, causal, scale, out, logsumexp);
    }

    @Override
    public String toString() { return "CpuBackend(attention=materialised)"; }
}
