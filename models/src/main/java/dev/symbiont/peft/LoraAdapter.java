package dev.symbiont.peft;

import dev.symbiont.core.Generator;
import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.LinearAdapter;
import dev.symbiont.nn.Parameter;

/**
 * A low-rank adapter on one frozen {@link Linear} (Hu et al. 2021, "LoRA", eq. 3):
 * <pre>
 *   y = x Wᵀ + b + (dropout(x) Aᵀ Bᵀ) · α / r          A: (r, in), B: (out, r)
 * </pre>
 * initialised as PEFT does: A ~ kaiming_uniform(a = √5) (torch's Linear default), B = 0, so the
 * adapted model starts exactly at the base. The scale is {@code lora_alpha / r}, or
 * {@code lora_alpha / √r} with rsLoRA. Its modules are named as PEFT's {@code lora.Linear} names
 * them under the adapted layer: {@code lora_dropout}, {@code lora_A}, {@code lora_B}.
 *
 * <p>{@link #merge} adds ΔW = B A · scale into the base weight (the adapter's term is then not
 * added again) and {@link #unmerge} subtracts it, as PEFT does: the weight comes back up to
 * float32 rounding, not bit for bit.
 */
public final class LoraAdapter extends LinearAdapter {
    private final Linear base;
    private final int r;
    private final double scaling;
    private final Dropout dropout;
    private final Linear loraA, loraB;
    private boolean merged;

    /**
     * An adapter for {@code base}, on its backend, A drawn from {@code g}; not yet attached.
     *
     * @param scaling the factor of the low-rank term (α / r)
     */
    LoraAdapter(Linear base, int r, double scaling, double dropout, Generator g) {
        if (r <= 0) throw new IllegalArgumentException("LoraAdapter: r must be positive, got " + r);
        this.base = base;
        this.r = r;
        this.scaling = scaling;
        try (var on = Backends.use(base.weight().value().backend())) {
            this.dropout = module("lora_dropout", new Dropout(dropout, new Generator(g.nextLong())));
            this.loraA = module("lora_A", new Linear(base.inFeatures(), r, false, g));      // kaiming_uniform(a = √5), as PEFT
            this.loraB = module("lora_B", new Linear(r, base.outFeatures(), false, g));
        }
        loraB.weight().update(Tensor.zerosLike(loraB.weight().value()));
    }

    /**
     * The low-rank term (x Aᵀ Bᵀ) · scaling, in two thin products (never the (out, in) ΔW).
     *
     * @param x (..., in)
     * @param a (r, in)
     * @param b (out, r)
     * @return (..., out)
     */
    public static Tensor lowRank(Tensor x, Tensor a, Tensor b, double scaling) {
        return Linears.linear(Linears.linear(x, a, null), b, null).mul(scaling);
    }

    /** x: (..., in) → (..., out), the term added to the base's output. */
    @Override
    public Tensor delta(Tensor x) { return lowRank(dropout.forward(x), loraA.weight().value(), loraB.weight().value(), scaling); }

    @Override
    public boolean merged() { return merged; }

    /** Adds ΔW = B A · scaling to the base weight; the adapter's term is then part of the base's output. */
    public void merge() {
        if (merged) throw new IllegalStateException("LoraAdapter.merge: already merged");
        shiftBase(1);
        merged = true;
    }

    /** Subtracts ΔW from the base weight again (PEFT's unmerge: equal to the weight before merging up to float32 rounding). */
    public void unmerge() {
        if (!merged) throw new IllegalStateException("LoraAdapter.unmerge: not merged");
        shiftBase(-1);
        merged = false;
    }

    private void shiftBase(int sign) {
        try (var noGrad = GradMode.disabled()) {
            // a base kept in bfloat16 is shifted in float32 and rounded once
            Tensor w = base.weight().value();
            base.weight().update(w.to(DType.FLOAT32).add(deltaWeight().mul(sign)).to(w.dtype()));
        }
    }

    /** ΔW = B A · scaling: (out, in), the weight change this adapter stands for. */
    public Tensor deltaWeight() {
        try (var noGrad = GradMode.disabled()) {
            return loraB.weight().value().matmul(loraA.weight().value()).mul(scaling);
        }
    }

    /** A: (r, in), {@code lora_A.weight}. */
    public Parameter a() { return loraA.weight(); }

    /** B: (out, r), {@code lora_B.weight}. */
    public Parameter b() { return loraB.weight(); }

    /** The rank r. */
    public int rank() { return r; }

    public double scaling() { return scaling; }

    /** The Linear this adapter adapts. */
    public Linear base() { return base; }

    @Override
    protected String extraRepr() { return "r=" + r + ", scaling=" + scaling + (merged ? ", merged" : ""); }
}
