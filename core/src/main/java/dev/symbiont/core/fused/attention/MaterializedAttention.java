package dev.symbiont.core.fused.attention;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.ops.Masks;

/**
 * The attention family's reference: the (batch, heads, sq, sk) scores
 * are materialised, masked, soft-maxed and multiplied by v, all with tensor ops. Grouped-query
 * attention costs no copy of k or v: q is seen as (batch, kvHeads, group·sq, d), so each kv head
 * multiplies the stacked rows of the query heads that share it, and the gradients of k and v
 * come out already summed over the group.
 *
 * <p>Score-sized temporaries are released as soon as the next one exists, so the forward holds
 * at most two (batch, heads, sq, sk) buffers at once, the backward three — the memory a fused
 * kernel saves.
 *
 * <p>It runs on any backend with that backend's matmul and elementwise kernels, so forcing the
 * family to its reference ({@code -Dsymbiont.fused.attention=reference}) isolates the kernel.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 */
public class MaterializedAttention implements AttentionKernels {

    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        q = wide(q);
        k = wide(k);
        v = wide(v);
        int b = q.size(0), h = q.size(1), sq = q.size(2), d = q.size(3), kvh = k.size(1), sk = k.size(2);
        Backend be = q.backend();
        if (b == 0 || h == 0 || sq == 0 || sk == 0) {
            return new AttentionResult(zeros(be, b, h, sq, d), fill(be, Double.NEGATIVE_INFINITY, b, h, sq));
        }
        Tensor s = scores(q, k, mask, causal, scale);
        // A row with every key masked has max −∞: shift it by 0 instead, so exp gives zeros, not NaN.
        Tensor m = s.amax(new int[] {3}, true);
        Tensor mSafe = Tensor.where(m.eq(Double.NEGATIVE_INFINITY), scalar(be, 0), m);
        Tensor shifted = consume(s.sub(mSafe), s);
        Tensor e = consume(shifted.exp(), shifted);
        Tensor sum = e.sum(3, true);
        Tensor lse = mSafe.add(sum.log()); // −∞ for an empty row
        Tensor p = consume(e.div(Tensor.where(sum.eq(0), scalar(be, 1), sum)), e);
        Tensor out = consume(p.reshape(b, kvh, (h / kvh) * sq, sk).matmul(v), p);
        return new AttentionResult(out.reshape(b, h, sq, d), lse.reshape(b, h, sq));
    }

    @Override
    public AttentionGrads attentionBackward(Tensor gradOut, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal,
                                            double scale, Tensor out, Tensor logsumexp) {
        q = wide(q);
        k = wide(k);
        v = wide(v);
        int b = q.size(0), h = q.size(1), sq = q.size(2), d = q.size(3), kvh = k.size(1), sk = k.size(2);
        int rows = (h / kvh) * sq;
        Backend be = q.backend();
        if (b == 0 || h == 0 || sq == 0 || sk == 0) {
            return new AttentionGrads(zeros(be, b, h, sq, d), zeros(be, b, kvh, sk, d),
                    zeros(be, b, kvh, sk, d));
        }
        // P = exp(S − lse), recomputed; an empty row (lse = −∞) subtracts +∞ and gets zeros.
        Tensor lse = logsumexp.reshape(b, h, sq, 1);
        Tensor lseSafe = Tensor.where(lse.eq(Double.NEGATIVE_INFINITY), scalar(be, Double.POSITIVE_INFINITY), lse);
        Tensor s = scores(q, k, mask, causal, scale);
        Tensor shifted = consume(s.sub(lseSafe), s);
        Tensor p = consume(shifted.exp(), shifted).reshape(b, kvh, rows, sk);
        Tensor dOut = gradOut.reshape(b, kvh, rows, d);
        Tensor dv = p.transpose(2, 3).matmul(dOut);
        // dS = P ∘ (dP − D), D = rowsum(dO ∘ O) = rowsum(P ∘ dP).
        Tensor dp = dOut.matmul(v.transpose(2, 3));
        Tensor rowDot = gradOut.mul(out).sum(3, true).reshape(b, kvh, rows, 1);
        Tensor ds = consume(p.mul(consume(dp.sub(rowDot), dp)), p);
        Tensor dq = ds.matmul(k).mul(scale).reshape(b, h, sq, d);
        Tensor dk = consume(ds.transpose(2, 3).matmul(q.reshape(b, kvh, rows, d)), ds).mul(scale);
        return new AttentionGrads(dq, dk, dv);
    }

    /** q·kᵀ·scale + mask + causal mask: (batch, heads, sq, sk), a fresh contiguous tensor. */
    private static Tensor scores(Tensor q, Tensor k, Tensor mask, boolean causal, double scale) {
        int b = q.size(0), h = q.size(1), sq = q.size(2), d = q.size(3), kvh = k.size(1), sk = k.size(2);
        Tensor qScaled = q.mul(scale).reshape(b, kvh, (h / kvh) * sq, d);
        Tensor s = qScaled.matmul(k.transpose(2, 3)).reshape(b, h, sq, sk);
        if (mask != null) s = consume(s.add(mask), s);
        if (causal) s = consume(s.add(Masks.causal(q.backend(), sq, sk)), s);
        return s;
    }

    /** A half-precision input as float32, in which the reference computes. */
    private static Tensor wide(Tensor t) {
        return t.dtype() == DType.FLOAT32 ? t : t.to(DType.FLOAT32);
    }

    /** Returns {@code result} after releasing {@code spent}, a temporary nothing else refers to. */
    private static Tensor consume(Tensor result, Tensor spent) {
        if (spent.storage() != result.storage()) spent.storage().release();
        return result;
    }

    @Override
    public String toString() { return "MaterializedAttention"; }

    private static Tensor scalar(Backend be, double value) {
        return fill(be, value);
    }

    private static Tensor zeros(Backend be, int... shape) {
        return fill(be, 0, shape);
    }

    /** A float32 tensor of {@code value} on {@code be}, without touching {@link Backends#current()}. */
    private static Tensor fill(Backend be, double value, int... shape) {
        return dev.symbiont.core.ops.Creation.full(be, value, DType.FLOAT32, shape);
    }
}
