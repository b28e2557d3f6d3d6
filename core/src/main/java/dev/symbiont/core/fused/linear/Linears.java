package dev.symbiont.core.fused.linear;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.autograd.Intermediates;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;
import java.util.List;

/**
 * {@code linear(x, weight, bias)} (torch's {@code F.linear}) and {@code linear_gelu} (the same
 * with GELU applied): checks, then the linear family's kernels through {@link FusedOp};
 * {@code linear_swiglu} through the moe family's gated projections. The
 * FLOP estimate is the GEMM's 2·rows·out·in plus one add per output for the bias, the work of
 * the matmul and add it replaces.
 */
public final class Linears {
    private Linears() {}

    private static final FusedOp<LinearKernels> LINEAR = FusedOp.of(LinearKernels.FAMILY, "linear", OpCategory.MATMUL);
    private static final FusedOp<LinearKernels> LINEAR_GELU = FusedOp.of(LinearKernels.FAMILY, "linear_gelu", OpCategory.MATMUL);
    /** Rows up to which linear_swiglu runs as two linears (a decoding step's). */
    private static final int FEW_ROWS = 4;
    private static final FusedOp<LinearKernels> LINEAR_SPLIT = FusedOp.of(LinearKernels.FAMILY, "linear_split", OpCategory.MATMUL);

    /**
     * x: (..., in), weight: (out, in), bias: (out) or null → (..., out) = x·Wᵀ + b, float32.
     * Under autocast x and W reach the family's kernels in the low-precision dtype, cast as
     * autocast's matmul casts its operands (and kept for backward in it); the bias stays float32
     * and the result is float32, as autocast's matmul returns (torch's CUDA autocast would return
     * the low dtype).
     */
    public static Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        check("linear", x, weight, bias);
        return product(lowered(x), lowered(weight), bias);
    }

    /**
     * t as the family's kernels take it: under autocast a copy in the low-precision dtype
     * (recorded, so the gradient flows back to the float32 tensor), otherwise t.
     */
    private static Tensor lowered(Tensor t) {
        DType low = Autocast.lowPrecision();
        return low == null ? t : t.to(low);
    }

    /** The linear op on checked operands as the kernels take them (float32, or both in autocast's dtype). */
    private static Tensor product(Tensor x, Tensor weight, Tensor bias) {
        Flat f = new Flat(x, weight, bias);
        return LINEAR.run(x.backend(), f.flops(), f.bytes(),
                k -> new FusedOp.Result<>(k.linear(f.x, f.w, f.b).reshape(f.outShape), f.x),
                (k, saved, g) -> {
                    Profiler.estimate(f.backwardFlops(0), f.backwardBytes(0));
                    return f.inputShaped(k.linearBackward(g.reshape(f.rows, f.out), saved, f.w, f.needs[0], f.needs[1], f.needs[2]));
                },
                x, weight, bias);
    }

    /**
     * x·Wᵀ + b cut into column groups of the given widths, torch's
     * {@code F.linear(x, weight, bias).split(sizes, -1)}: a fused qkv projection's q, k and v.
     * x: (..., in), weight: (out, in), bias: (out) or null, sizes summing to out → one
     * (..., sizes[i]) view per group of one (..., out) output. The forward is one product; the
     * backward writes each group's weight and bias gradients into its rows of one (out, in)
     * gradient, where narrowing W per group would pad every group's gradient to W's size and add
     * the padded ones up. Under autocast x and W reach the kernels as in {@link #linear}.
     */
    public static Tensor[] linearSplit(Tensor x, Tensor weight, Tensor bias, int... sizes) {
        check("linear_split", x, weight, bias);
        int total = 0;
        for (int size : sizes) {
            if (size <= 0) throw new IllegalArgumentException("linear_split: group sizes must be positive, got " + Arrays.toString(sizes));
            total += size;
        }
        if (sizes.length == 0 || total != weight.size(0)) {
            throw new IllegalArgumentException("linear_split: group sizes " + Arrays.toString(sizes) + " must add up to the weight's "
                    + weight.size(0) + " output rows");
        }
        int[] groups = sizes.clone();
        Tensor xk = lowered(x), wk = lowered(weight);
        Flat f = new Flat(xk, wk, bias);
        return LINEAR_SPLIT.runOutputs(x.backend(), f.flops(), f.bytes(),
                k -> new FusedOp.OutputsResult<>(columnGroups(k.linear(f.x, f.w, f.b).reshape(f.outShape), groups), f.x),
                (k, saved, g) -> {
                    Profiler.estimate(f.backwardFlops(0), f.backwardBytes(0));
                    Tensor[] flat = new Tensor[g.length];
                    for (int i = 0; i < g.length; i++) flat[i] = g[i] == null ? null : g[i].reshape(f.rows, groups[i]);
                    return f.inputShaped(k.linearSplitBackward(flat, groups, saved, f.w, f.needs[0], f.needs[1], f.needs[2]));
                },
                xk, wk, bias);
    }

    /** The last dim of y cut into views of the given widths. */
    private static Tensor[] columnGroups(Tensor y, int[] sizes) {
        Tensor[] out = new Tensor[sizes.length];
        for (int i = 0, from = 0; i < sizes.length; from += sizes[i++]) out[i] = y.narrow(-1, from, sizes[i]);
        return out;
    }

    /**
     * GELU(x·Wᵀ + b) (erf form, torch's {@code F.gelu(F.linear(x, weight, bias))}) as one op:
     * x: (..., in), weight: (out, in), bias: (out) or null → (..., out). What backward keeps is
     * x and GELU′ at the pre-activation (computed with the GELU itself), not the pre-activation.
     * Under autocast x and W reach the kernels as in {@link #linear}; GELU and GELU′ are float32.
     */
    public static Tensor linearGelu(Tensor x, Tensor weight, Tensor bias) {
        check("linear_gelu", x, weight, bias);
        Tensor xk = lowered(x), wk = lowered(weight);
        Flat f = new Flat(xk, wk, bias);
        boolean recorded = GradMode.isEnabled() && (f.needs[0] || f.needs[1] || f.needs[2]);
        // GELU costs about as much as 14 multiply-adds per element (erfc's polynomial, an exponential)
        long geluFlops = 14L * f.rows * f.out;
        Tensor[] derivative = new Tensor[1];
        Tensor y = LINEAR_GELU.run(x.backend(), f.flops() + geluFlops, f.bytes() + (recorded ? 4L * f.rows * f.out : 0),
                k -> {
                    LinearKernels.LinearGelu r = k.linearGelu(f.x, f.w, f.b, recorded);
                    derivative[0] = r.derivative();
                    return new FusedOp.Result<>(r.output().reshape(f.outShape), new Tensor[] {f.x, r.derivative()});
                },
                (k, saved, g) -> {
                    Profiler.estimate(f.backwardFlops(1), f.backwardBytes(1)); // and the product with GELU′
                    return f.inputShaped(k.linearGeluBackward(g.reshape(f.rows, f.out), saved[1], saved[0], f.w,
                            f.needs[0], f.needs[1], f.needs[2]));
                },
                xk, wk, bias);
        Intermediates.savedOnlyBy(y, derivative[0]); // GELU′ is this op's own: the pool has it back after backward
        return y;
    }

    /**
     * SwiGLU's gate over two bias-free projections of x, SiLU(x·W1ᵀ) ⊙ (x·W3ᵀ) (Shazeer 2020,
     * eq. 6; Llama's w1 and w3): x (..., in), w1 and w3 (hidden, in) → (..., hidden). It runs as
     * the moe family's {@link Moe#groupedSwiglu} over one group of all rows, whose CPU kernel
     * without gradients computes both products in one pass over x and applies the gate to each
     * tile in cache. Under autocast it is the composition of two linears (x cast once), SiLU and the product.
     */
    public static Tensor linearSwiglu(Tensor x, Tensor w1, Tensor w3) {
        check("linear_swiglu", x, w1, null);
        check("linear_swiglu", x, w3, null);
        if (!Arrays.equals(w1.shape(), w3.shape())) {
            throw new IllegalArgumentException("linear_swiglu: w1 " + Arrays.toString(w1.shape()) + " and w3 "
                    + Arrays.toString(w3.shape()) + " must have one shape");
        }
        if (Autocast.lowPrecision() != null) {
            Tensor xLow = lowered(x);
            return product(xLow, lowered(w1), null).silu().mul(product(xLow, lowered(w3), null));
        }
        int in = w1.size(1), rows = x.numel() / in;
        // A decoding step's few rows, or weights kept at a checkpoint's precision: two linears,
        // which stream W without packing it (the grouped kernel packs, for rows that reuse it)
        if (rows <= FEW_ROWS || w1.dtype() != DType.FLOAT32 || w3.dtype() != DType.FLOAT32) {
            return product(x, w1, null).silu().mul(product(x, w3, null));
        }
        int[] outShape = x.shape().clone();
        outShape[outShape.length - 1] = w1.size(0);
        // One group of all rows; a fill on the backend, so the call uploads nothing.
        Tensor sizes = Creation.full(x.backend(), rows, DType.INT64, 1);
        return Moe.groupedSwiglu(x.reshape(rows, in), List.of(w1.t()), List.of(w3.t()), sizes).reshape(outShape);
    }

    /**
     * x and the bias float32; the weight float32, or bfloat16/float16 as a checkpoint stored it
     * (a pretrained model's matrices kept at their stored precision), widened where it computes.
     */
    private static void check(String op, Tensor x, Tensor weight, Tensor bias) {
        Checks.float32(op, x, bias);
        if (weight.dtype() != DType.FLOAT32 && !weight.dtype().isHalf()) Checks.float32(op, weight);
        Checks.sameBackend(op, x, weight, bias);
        if (x.dim() == 0 || weight.dim() != 2 || x.size(-1) != weight.size(1)
                || (bias != null && (bias.dim() != 1 || bias.size(0) != weight.size(0)))) {
            throw new IllegalArgumentException(op + ": input " + Arrays.toString(x.shape()) + ", weight "
                    + Arrays.toString(weight.shape()) + " and bias " + (bias == null ? "none" : Arrays.toString(bias.shape()))
                    + " do not fit: need input (..., in), weight (out, in), bias (out)");
        }
    }

    /** The operands as the kernels take them: x flattened to (rows, in), no autograd history. */
    private static final class Flat {
        final int in, out, rows;
        final int[] inShape, outShape;
        final Tensor x, w, b;
        final boolean[] needs;
        /** The op's bytes estimate, taken here: the node must not hold x itself (its graph). */
        private final long bytes;
        /** W is a weight kept at a checkpoint's bfloat16/float16 precision, not autocast's copy. */
        private final boolean storedLowWeight;

        Flat(Tensor x, Tensor weight, Tensor bias) {
            this.in = weight.size(1);
            this.out = weight.size(0);
            this.rows = x.numel() / Math.max(in, 1);
            this.inShape = x.shape();
            this.outShape = x.shape();
            outShape[outShape.length - 1] = out;
            this.x = x.detach().reshape(rows, in);
            this.w = weight.detach();
            this.b = bias == null ? null : bias.detach();
            this.bytes = FusedOp.bytes(x, weight, bias) + 4L * rows * out;
            this.storedLowWeight = Autocast.lowPrecision() == null && weight.dtype() != DType.FLOAT32;
            this.needs = new boolean[] {x.requiresGrad(), weight.requiresGrad(), bias != null && bias.requiresGrad()};
        }

        long flops() { return 2L * rows * out * in + (b == null ? 0 : (long) rows * out); }

        long bytes() { return bytes; }

        /**
         * The backward's work, for the profiler: a GEMM for each of the input and weight
         * gradients asked for, the bias gradient's sums, and {@code perOutput} more operations
         * per output element (linear_gelu's product with GELU′).
         */
        long backwardFlops(int perOutput) {
            long gemm = 2L * rows * out * in, outputs = (long) rows * out;
            return (needs[0] ? gemm : 0) + (needs[1] ? gemm : 0) + (needs[2] ? outputs : 0) + perOutput * outputs;
        }

        /**
         * Bytes the backward reads and writes: the output gradient (and {@code extraOutputs} more
         * like it), W and the input gradient, x and W's; x and W as stored, the gradients float32.
         */
        long backwardBytes(int extraOutputs) {
            long weight = (long) w.dtype().byteSize() * out * in, activations = (long) x.dtype().byteSize() * rows * in;
            return 4L * rows * out * (1 + extraOutputs) + (needs[0] ? weight + 4L * rows * in : 0)
                    + (needs[1] ? activations + 4L * out * in : 0) + (needs[2] ? 4L * out : 0);
        }

        /** The gradients in the order of the op's inputs, the input's in x's shape. */
        Tensor[] inputShaped(LinearKernels.LinearGrads gr) {
            // a weight kept in bfloat16/float16 gets its gradient in its own dtype; autocast's
            // low-precision copy of a float32 weight passes float32 on to the cast's backward
            Tensor dw = gr.weight() == null || !storedLowWeight ? gr.weight() : gr.weight().to(w.dtype());
            return new Tensor[] {gr.input() == null ? null : gr.input().reshape(inShape), dw, gr.bias()};
        }
    }
}
