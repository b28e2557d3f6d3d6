package dev.symbiont.core.backend;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Elementwise;

/**
 * The fused tier of the backend SPI: hardware-aware ops whose defaults here are composed from
 * the primitives. These defaults are the reference implementations; a backend overrides an op
 * only to make it faster, and the conformance kit compares the two.
 *
 * <p>Fused ops take and return tensors that carry no autograd history: core calls them with
 * gradients off and records its own backward, which calls the matching backward op here.
 * Norm ops work on 2-D (rows, cols) views: core flattens the leading dims.
 */
public interface FusedOps {

    /** softmax along dim. */
    default Tensor softmax(Tensor x, int dim) {
        Tensor e = x.sub(x.amax(new int[] {dim}, true)).exp();
        return e.div(e.sum(dim, true));
    }

    /** Gradient of softmax from its output y: y * (g - sum(g * y)). */
    default Tensor softmaxBackward(Tensor y, Tensor gradY, int dim) {
        return y.mul(gradY.sub(gradY.mul(y).sum(dim, true)));
    }

    /** log_softmax along dim. */
    default Tensor logSoftmax(Tensor x, int dim) {
        Tensor shifted = x.sub(x.amax(new int[] {dim}, true));
        return shifted.sub(shifted.exp().sum(dim, true).log());
    }

    /** Gradient of log_softmax from its output y: g - exp(y) * sum(g). */
    default Tensor logSoftmaxBackward(Tensor y, Tensor gradY, int dim) {
        return gradY.sub(y.exp().mul(gradY.sum(dim, true)));
    }

    /**
     * Layer norm of each row of x (rows, cols); weight and bias (cols) may be null.
     * Returns the output and the per-row mean and 1/std (rows, 1) that backward needs.
     */
    default NormResult layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        Tensor mean = x.mean(1, true);
        Tensor centered = x.sub(mean);
        Tensor rstd = centered.square().mean(1, true).add(eps).rsqrt();
        Tensor y = centered.mul(rstd);
        if (weight != null) y = y.mul(weight);
        if (bias != null) y = y.add(bias);
        return new NormResult(y, mean, rstd);
    }

    /** Gradients of layer norm for x, weight and bias (null where the input was null). */
    default NormGrads layerNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        Tensor xhat = x.sub(mean).mul(rstd);
        Tensor gxhat = weight == null ? gradY : gradY.mul(weight);
        Tensor gx = gxhat.sub(gxhat.mean(1, true)).sub(xhat.mul(gxhat.mul(xhat).mean(1, true))).mul(rstd);
        Tensor gw = weight == null ? null : gradY.mul(xhat).sum(0, false);
        Tensor gb = bias == null ? null : gradY.sum(0, false);
        return new NormGrads(gx, gw, gb);
    }

    /** RMS norm of each row of x (rows, cols); weight (cols) may be null. The result's mean is null. */
    default NormResult rmsNorm(Tensor x, Tensor weight, double eps) {
        Tensor rstd = x.square().mean(1, true).add(eps).rsqrt();
        Tensor y = x.mul(rstd);
        if (weight != null) y = y.mul(weight);
        return new NormResult(y, null, rstd);
    }

    /** Gradients of RMS norm for x and weight. */
    default NormGrads rmsNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor rstd) {
        Tensor xhat = x.mul(rstd);
        Tensor gxhat = weight == null ? gradY : gradY.mul(weight);
        Tensor gx = gxhat.sub(xhat.mul(gxhat.mul(xhat).mean(1, true))).mul(rstd);
        Tensor gw = weight == null ? null : gradY.mul(xhat).sum(0, false);
        return new NormGrads(gx, gw, null);
    }

    /**
     * Gradient of GELU at x times gradY (same shape): d/dx x·Φ(x) = Φ(x) + x·φ(x) for the erf
     * form; for the tanh form (u = √(2/π)(x + 0.044715x³)) 0.5(1 + tanh u) + 0.5x(1 − tanh²u)·u'.
     */
    default Tensor geluBackward(Tensor x, Tensor gradY, boolean tanhApproximation) {
        if (tanhApproximation) {
            double sqrtTwoOverPi = Math.sqrt(2 / Math.PI), cubic = 0.044715;
            Tensor x2 = x.square();
            Tensor t = x.add(x2.mul(x).mul(cubic)).mul(sqrtTwoOverPi).tanh();
            Tensor du = x2.mul(3 * cubic).add(1.0).mul(sqrtTwoOverPi);
            return gradY.mul(t.add(1.0).mul(0.5).add(x.mul(0.5).mul(t.square().neg().add(1.0)).mul(du)));
        }
        Tensor cdf = Elementwise.unary(UnaryOp.ERF, x.mul(Math.sqrt(0.5))).add(1.0).mul(0.5);
        Tensor pdf = x.square().mul(-0.5).exp().mul(1 / Math.sqrt(2 * Math.PI));
        return gradY.mul(cdf.add(x.mul(pdf)));
    }

    /** Gradient of SiLU at x times gradY (same shape): s·(1 + x(1 − s)) with s = sigmoid(x). */
    default Tensor siluBackward(Tensor x, Tensor gradY) {
        Tensor s = x.sigmoid();
        return gradY.mul(s.mul(x.mul(s.neg().add(1.0)).add(1.0)));
    }

    /**
     * Scaled-dot-product attention, softmax(q·kᵀ·scale + mask [+ causal]) · v, with the per-row
     * logsumexp its backward reuses. q: (batch, heads, sq, d); k, v: (batch, kvHeads, sk, d) with
     * heads % kvHeads == 0 (query head h reads kv head h / (heads / kvHeads)); mask: null or an
     * additive float32 mask broadcastable to (batch, heads, sq, sk); causal: key j is visible to
     * query i iff j ≤ i + (sk − sq). Any strides. A row with every key masked outputs zeros and
     * has logsumexp −∞. Semantics: {@link dev.symbiont.core.ops.Attention}.
     *
     * <p>The default materialises the (batch, heads, sq, sk) scores (the reference); a backend
     * overrides it with a kernel that never holds them.
     *
     * @return output (batch, heads, sq, d) and logsumexp (batch, heads, sq)
     */
    default AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        return MaterializedAttention.forward(q, k, v, mask, causal, scale);
    }

    /**
     * Gradients of {@link #attention} from the output gradient (batch, heads, sq, d), the inputs,
     * and the forward's output and logsumexp: dq (batch, heads, sq, d); dk and dv
     * (batch, kvHeads, sk, d), summed over the query heads that share a kv head.
     */
    default AttentionGrads attentionBackward(Tensor gradOut, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal,
                                             double scale, Tensor out, Tensor logsumexp) {
        return MaterializedAttention.backward(gradOut, q, k, v, mask, causal, scale, out, logsumexp);
    }

    /** Attention's output (batch, heads, sq, d) and the natural-log logsumexp of each score row (batch, heads, sq). */
    record AttentionResult(Tensor output, Tensor logsumexp) {}

    /** Gradients of attention's q (batch, heads, sq, d), k and v (batch, kvHeads, sk, d). */
    record AttentionGrads(Tensor dq, Tensor dk, Tensor dv) {}

    /** A norm's output with the statistics its backward reuses: mean and rstd are (rows, 1). */
    record NormResult(Tensor output, Tensor mean, Tensor rstd) {}

    /** Gradients of a norm's input, weight and bias; null for an absent parameter. */
    record NormGrads(Tensor input, Tensor weight, Tensor bias) {}
}
