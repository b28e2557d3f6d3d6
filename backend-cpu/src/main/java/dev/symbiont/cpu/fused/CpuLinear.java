package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.linear.LinearKernels;
import dev.symbiont.core.fused.linear.ReferenceLinear;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.MatVec;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.VectorActivationGrads;
import dev.symbiont.cpu.kernels.VectorElementwise;

import java.util.function.BiFunction;

/**
 * The linear family on the backend's {@link Gemm}. The forward is one {@link Gemm#sgemmBias}:
 * the vector GEMM starts each register tile from the bias, so y = x·Wᵀ + b costs no pass
 * after the product. The backward is two GEMMs on the tensors as they lie (W and x read
 * through their strides, never transposed into copies); the weight gradient's
 * {@link Gemm#sgemmRowSums} also returns the bias gradient, summed from the packed blocks of
 * gᵀ the product reads anyway, so the output gradient is not read a second time for it.
 * linear_gelu adds one vector pass over the fresh output that writes GELU in place and GELU′
 * beside it, so its backward is a product and the same two GEMMs. Autocast's bfloat16 or float16
 * x and W are widened to float32 copies first, as the backend's matmul widens its operands.
 */
public final class CpuLinear implements LinearKernels {
    private static final LinearKernels REFERENCE = LinearKernels.FAMILY.reference();
    private static final String OP = "linear";

    private final Backend backend;
    private final CpuTensors io;
    private final Gemm gemm;
    private final boolean vector;

    /** {@code vector} false: linear_gelu's GELU pass runs the reference's primitives (the scalar twin). */
    public CpuLinear(Backend backend, Gemm gemm, boolean vector) {
        this.backend = backend;
        this.io = new CpuTensors(backend);
        this.gemm = gemm;
        this.vector = vector;
    }

    @Override
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        if (matVecFits(x, weight, bias)) return matVec(x, weight, bias);
        if (lowPrecision(x, weight)) return widened(x, weight, (x32, w32) -> linear(x32, w32, bias));
        if (!ready(x, weight, bias)) return REFERENCE.linear(x, weight, bias);
        int rows = x.size(0), in = x.size(1), out = weight.size(0);
        Rows xs = io.rows(OP, x, rows, in);
        Layout wl = weight.layout();
        float[] w = HeapStorage.floats(OP, weight.storage(), wl);
        HeapStorage y = io.emptyFloats(rows * out); // the GEMM writes every element (k = in > 0)
        // B = Wᵀ: B(p, j) = W[j, p]
        if (bias == null) {
            gemm.sgemm(rows, out, in, xs.data(), xs.offset(), xs.stride(), 1,
                    w, wl.offset(), wl.stride(1), wl.stride(0), y.floats(), 0, out);
        } else {
            Rows b = io.vectorOf(OP, bias);
            gemm.sgemmBias(rows, out, in, xs.data(), xs.offset(), xs.stride(), 1,
                    w, wl.offset(), wl.stride(1), wl.stride(0), b.data(), b.offset(), y.floats(), 0, out);
        }
        return Tensor.of(y, rows, out);
    }

    @Override
    public LinearGrads linearBackward(Tensor gradY, Tensor x, Tensor weight, boolean input, boolean weightGrad, boolean bias) {
        if (lowPrecision(x, weight)) return widened(x, weight, (x32, w32) -> linearBackward(gradY, x32, w32, input, weightGrad, bias));
        if (!ready(x, weight, null) || gradY.dtype() != DType.FLOAT32) {
            return REFERENCE.linearBackward(gradY, x, weight, input, weightGrad, bias);
        }
        int rows = x.size(0), in = x.size(1), out = weight.size(0);
        Rows g = io.rows(OP, gradY, rows, out);
        Layout wl = weight.layout();
        Tensor gx = null, gw = null, gb = null;
        if (input) {
            float[] w = HeapStorage.floats(OP, weight.storage(), wl);
            HeapStorage dx = io.emptyFloats(rows * in);
            gemm.sgemm(rows, in, out, g.data(), g.offset(), g.stride(), 1,
                    w, wl.offset(), wl.stride(0), wl.stride(1), dx.floats(), 0, in);
            gx = Tensor.of(dx, rows, in);
        }
        HeapStorage db = bias ? io.newFloats(out) : null;
        if (weightGrad) {
            Rows xs = io.rows(OP, x, rows, in);
            HeapStorage dw = io.emptyFloats(out * in);
            // A = gᵀ: A(i, p) = g[p, i]; its row sums are the bias gradient
            if (bias) {
                gemm.sgemmRowSums(out, in, rows, g.data(), g.offset(), 1, g.stride(),
                        xs.data(), xs.offset(), xs.stride(), 1, dw.floats(), 0, in, db.floats(), 0);
            } else {
                gemm.sgemm(out, in, rows, g.data(), g.offset(), 1, g.stride(),
                        xs.data(), xs.offset(), xs.stride(), 1, dw.floats(), 0, in);
            }
            gw = Tensor.of(dw, out, in);
        } else if (bias) {
            sumColumns(g, rows, out, db.floats(), 0);
        }
        if (bias) gb = Tensor.of(db, out);
        return new LinearGrads(gx, gw, gb);
    }

    /**
     * {@link #linearBackward}'s GEMMs once per group, each weight gradient (and its row sums, the
     * bias gradient) written straight into the group's rows of one (out, in) gradient; the input
     * gradients from the last group to the first, each after the first into one scratch buffer
     * added into the sum with the backend's in-place add, as autograd adds separate linears'.
     */
    @Override
    public LinearGrads linearSplitBackward(Tensor[] gradYs, int[] sizes, Tensor x, Tensor weight, boolean input, boolean weightGrad,
                                           boolean bias) {
        if (lowPrecision(x, weight)) {
            return widened(x, weight, (x32, w32) -> linearSplitBackward(gradYs, sizes, x32, w32, input, weightGrad, bias));
        }
        boolean complete = true;
        for (Tensor g : gradYs) {
            if (g != null && g.dtype() != DType.FLOAT32) return REFERENCE.linearSplitBackward(gradYs, sizes, x, weight, input, weightGrad, bias);
            complete &= g != null;
        }
        if (!ready(x, weight, null)) return REFERENCE.linearSplitBackward(gradYs, sizes, x, weight, input, weightGrad, bias);
        int rows = x.size(0), in = x.size(1), out = weight.size(0);
        Layout wl = weight.layout();
        float[] w = HeapStorage.floats(OP, weight.storage(), wl);
        Rows[] gs = new Rows[sizes.length];
        int[] first = new int[sizes.length]; // the group's first row of W
        for (int i = 0, from = 0; i < sizes.length; from += sizes[i++]) {
            first[i] = from;
            gs[i] = gradYs[i] == null ? null : io.rows(OP, gradYs[i], rows, sizes[i]);
        }
        HeapStorage dx = null;
        if (input) {
            HeapStorage part = null;
            for (int i = sizes.length - 1; i >= 0; i--) {
                if (gs[i] == null) continue;
                HeapStorage into = dx == null ? dx = io.emptyFloats(rows * in) : part == null ? part = io.emptyFloats(rows * in) : part;
                gemm.sgemm(rows, in, sizes[i], gs[i].data(), gs[i].offset(), gs[i].stride(), 1,
                        w, wl.offset() + first[i] * wl.stride(0), wl.stride(0), wl.stride(1), into.floats(), 0, in);
                if (into == part) backend.addInto(dx, Layout.contiguous(rows, in), part, Layout.contiguous(rows, in));
            }
            if (part != null) part.release();
        }
        HeapStorage db = bias ? io.newFloats(out) : null; // zero: a group without a gradient keeps zero rows
        HeapStorage dw = !weightGrad ? null : complete ? io.emptyFloats(out * in) : io.newFloats(out * in);
        Rows xs = weightGrad ? io.rows(OP, x, rows, in) : null;
        for (int i = 0; i < sizes.length; i++) {
            Rows g = gs[i];
            if (g == null) continue;
            // A = gᵀ: A(i, p) = g[p, i]; its row sums are the group's bias gradient
            if (weightGrad && bias) {
                gemm.sgemmRowSums(sizes[i], in, rows, g.data(), g.offset(), 1, g.stride(),
                        xs.data(), xs.offset(), xs.stride(), 1, dw.floats(), first[i] * in, in, db.floats(), first[i]);
            } else if (weightGrad) {
                gemm.sgemm(sizes[i], in, rows, g.data(), g.offset(), 1, g.stride(),
                        xs.data(), xs.offset(), xs.stride(), 1, dw.floats(), first[i] * in, in);
            } else if (bias) {
                sumColumns(g, rows, sizes[i], db.floats(), first[i]);
            }
        }
        return new LinearGrads(dx == null ? null : Tensor.of(dx, rows, in), dw == null ? null : Tensor.of(dw, out, in),
                db == null ? null : Tensor.of(db, out));
    }

    /**
     * The linear above, then GELU and GELU′ in one pass over its output while this call still
     * owns it: GELU is written over the pre-activation in place, so the pass allocates only the
     * derivative. (Inside the GEMM's register tile it would need an epilogue hook in the GEMM.)
     */
    @Override
    public LinearGelu linearGelu(Tensor x, Tensor weight, Tensor bias, boolean keepDerivative) {
        Tensor z = linear(x, weight, bias);
        if (!vector) return ReferenceLinear.gelu(z, keepDerivative);
        if (!(z.storage() instanceof HeapStorage zs) || z.dtype() != DType.FLOAT32 || !z.isContiguous() || z.layout().offset() != 0) {
            Fallbacks.record("linear_gelu", "a linear output that is not a fresh float32 heap tensor");
            return ReferenceLinear.gelu(z, keepDerivative);
        }
        int n = z.numel();
        float[] zf = zs.floats();
        if (!keepDerivative) {
            VectorElementwise.unary(UnaryOp.GELU_ERF, zf, 0, zf, n);
            return new LinearGelu(z, null);
        }
        HeapStorage d = io.emptyFloats(n); // every element written below
        VectorActivationGrads.geluErfWithGrad(zf, 0, zf, 0, d.floats(), n);
        return new LinearGelu(z, Tensor.of(d, z.shape()));
    }

    /**
     * gradY ⊙ GELU′ (the same products as the activation family's mul, bit for bit), then
     * {@link #linearBackward}'s two GEMMs. The product is scratch of this call: it goes back to
     * the pool as soon as the GEMMs have read it, so the next step reuses it rather than
     * zero-filling a fresh array.
     */
    @Override
    public LinearGrads linearGeluBackward(Tensor gradY, Tensor derivative, Tensor x, Tensor weight, boolean input, boolean weightGrad,
                                          boolean bias) {
        if (gradY.dtype() != DType.FLOAT32 || derivative.dtype() != DType.FLOAT32) {
            return linearBackward(gradY.mul(derivative), x, weight, input, weightGrad, bias);
        }
        // the backend's own product, as gradY.mul runs it, without recording it as an op of its own
        Storage dz = backend.binary(BinaryOp.MUL, gradY.storage(), gradY.layout(), derivative.storage(), derivative.layout());
        try {
            return linearBackward(new Tensor(dz, Layout.contiguous(gradY.shape())), x, weight, input, weightGrad, bias);
        } finally {
            dz.release(); // the gradients are fresh buffers: none of them is dz
        }
    }

    /** sums[from + j] += Σ_r g[r, j] for each j, row by row (the inner loop runs along memory). */
    private static void sumColumns(Rows g, int rows, int cols, float[] sums, int from) {
        float[] d = g.data();
        for (int r = 0; r < rows; r++) {
            for (int j = 0, at = g.start(r); j < cols; j++) sums[from + j] += d[at + j];
        }
    }

    /**
     * A decoding step's product: a few float32 rows against a float32 or bfloat16 W whose rows
     * are consecutive (as a Linear's weight lies), which {@link MatVec} streams once without
     * packing it or widening it to a copy.
     */
    private boolean matVecFits(Tensor x, Tensor weight, Tensor bias) {
        int in = weight.size(1);
        return vector && x.dtype() == DType.FLOAT32 && (weight.dtype() == DType.FLOAT32 || weight.dtype() == DType.BFLOAT16)
                && (bias == null || bias.dtype() == DType.FLOAT32) && x.numel() > 0 && weight.numel() > 0
                && x.numel() / in <= MatVec.MAX_ROWS && (weight.layout().stride(1) == 1 || in == 1);
    }

    private Tensor matVec(Tensor x, Tensor weight, Tensor bias) {
        int rows = x.size(0), in = x.size(1), out = weight.size(0);
        Rows xs = io.rows(OP, x, rows, in);
        Layout wl = weight.layout();
        HeapStorage w = HeapStorage.checked(OP, weight.storage(), wl);
        Rows b = io.vectorOf(OP, bias);
        HeapStorage y = io.emptyFloats(rows * out); // every element written
        MatVec.forward(true, rows, out, in, xs.data(), xs.offset(), xs.stride(), new MatVec.Weights(w.array(), wl.offset(), wl.stride(0)),
                b == null ? null : b.data(), b == null ? 0 : b.offset(), y.floats(), out);
        return Tensor.of(y, rows, out);
    }

    /** Whether x or W is bfloat16 or float16: autocast's operands. */
    private static boolean lowPrecision(Tensor x, Tensor weight) {
        return x.dtype().isHalf() || weight.dtype().isHalf();
    }

    /**
     * The kernel on float32 copies of autocast's low-precision x and W, widened as the backend's
     * matmul widens its operands (the same values, so the same products), released afterwards.
     * The bias is fused into the GEMM and linear_gelu's GELU pass runs on its output, which the
     * matmul-and-add composition could not do.
     */
    private <R> R widened(Tensor x, Tensor weight, BiFunction<Tensor, Tensor, R> kernel) {
        Tensor x32 = float32(x), w32 = float32(weight);
        try {
            return kernel.apply(x32, w32);
        } finally {
            if (x32 != x) x32.storage().release();
            if (w32 != weight) w32.storage().release();
        }
    }

    /** t widened to a contiguous float32 copy on the backend, or t when it is float32 already. */
    private Tensor float32(Tensor t) {
        if (t.dtype() == DType.FLOAT32) return t;
        return Tensor.of(backend.cast(t.storage(), t.layout(), DType.FLOAT32), t.shape());
    }

    /** Non-empty float32 operands; otherwise counts a fallback. */
    private static boolean ready(Tensor x, Tensor weight, Tensor bias) {
        if (x.numel() > 0 && weight.numel() > 0 && x.dtype() == DType.FLOAT32 && weight.dtype() == DType.FLOAT32
                && (bias == null || bias.dtype() == DType.FLOAT32)) {
            return true;
        }
        Fallbacks.record(OP, "an empty or non-float32 operand");
        return false;
    }

    @Override
    public String toString() { return "CpuLinear"; }
}
