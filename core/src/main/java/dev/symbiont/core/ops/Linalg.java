package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;

/** matmul (torch.matmul semantics), tril and triu. */
public final class Linalg {
    private Linalg() {}

    /**
     * a: (..., m, k) or (k), b: (..., k, n) or (k); leading dims broadcast. A 1-D operand is
     * promoted to a matrix and the added dim removed from the result.
     */
    public static Tensor matmul(Tensor a, Tensor b) {
        Checks.sameBackend("matmul", a, b);
        Checks.float32("matmul", a, b);
        if (a.dim() == 0 || b.dim() == 0) {
            throw new IllegalArgumentException("matmul: both operands need at least 1 dim, got shapes "
                    + Arrays.toString(a.shape()) + " and " + Arrays.toString(b.shape()));
        }
        DType low = Autocast.lowPrecision();
        if (low != null && a.dim() >= 2 && b.dim() >= 2) return autocast(a, b, low);
        return product(a, b);
    }

    /** The product of checked operands (float32, or low precision under autocast), recorded for autograd. */
    private static Tensor product(Tensor a, Tensor b) {
        Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
        Tensor b2 = b.dim() == 1 ? b.unsqueeze(-1) : b;
        Tensor out = foldsIntoRows(a2, b2) ? rowsTimesMatrix(a2, b2) : batched(a2, b2, a.shape(), b.shape());
        if (a.dim() == 1) out = out.squeeze(-2);
        if (b.dim() == 1) out = out.squeeze(-1);
        return out;
    }

    /**
     * (..., m, k) @ (k, n) with a's leading dims viewable as more rows (a Linear layer on a
     * batch): one (rows, k) @ (k, n) product instead of a batch of them, as PyTorch does. The
     * weight's gradient is then one product that sums over every row, instead of one per batch
     * entry added up afterwards (a (batch, k, n) temporary and a reduction).
     */
    private static boolean foldsIntoRows(Tensor a, Tensor b) {
        if (a.dim() <= 2 || b.dim() != 2 || a.size(-1) != b.size(0) || a.size(-1) == 0) return false;
        return a.layout().reshapeView(new int[] {a.numel() / a.size(-1), a.size(-1)}) != null;
    }

    private static Tensor rowsTimesMatrix(Tensor a, Tensor b) {
        int k = a.size(-1);
        int[] outShape = a.shape();
        outShape[outShape.length - 1] = b.size(1);
        return batched(a.reshape(a.numel() / k, k), b, a.shape(), b.shape()).reshape(outShape);
    }

    private static Tensor batched(Tensor a, Tensor b, int[] shapeA, int[] shapeB) {
        int[] sa = a.shape(), sb = b.shape();
        int m = sa[sa.length - 2], k = sa[sa.length - 1], kb = sb[sb.length - 2], n = sb[sb.length - 1];
        if (k != kb) {
            throw new IllegalArgumentException("matmul: shapes " + Arrays.toString(shapeA) + " and " + Arrays.toString(shapeB)
                    + " cannot be multiplied (" + k + " columns vs " + kb + " rows)");
        }
        int[] batch = Checks.broadcast("matmul: batch dims of " + Arrays.toString(shapeA) + " and " + Arrays.toString(shapeB),
                Arrays.copyOf(sa, sa.length - 2), Arrays.copyOf(sb, sb.length - 2));
        int[] fullA = append(batch, m, k), fullB = append(batch, k, n), outShape = append(batch, m, n);
        Layout.numel("matmul", outShape);
        // Exactly 2·batch·m·n·k FLOPs (one multiply and one add per term); bytes: operands as stored plus the result.
        long products = (long) Layout.numel(batch) * m * n;
        try (var p = Profiler.op(a.backend(), "matmul", OpCategory.MATMUL, 2 * products * k, Profiled.bytes(a) + Profiled.bytes(b) + 4 * products)) {
            Tensor y = Tensor.of(a.backend().matmul(a.storage(), a.layout().expand(fullA), b.storage(), b.layout().expand(fullB)), outShape);
            return Autograd.record("matmul", y, g -> new Tensor[] {
                    a.requiresGrad() ? Reductions.sumToShape(g.matmul(b.transpose(-2, -1)), sa) : null,
                    b.requiresGrad() ? Reductions.sumToShape(rightGrad(a, b, g), sb) : null}, a, b);
        }
    }

    /**
     * aᵀ·g, the gradient of the right operand. When b is a transposed contiguous matrix (a
     * Linear layer's Wᵀ) it is computed as (gᵀ·a)ᵀ: the same product, but W's own gradient
     * then comes out contiguous, so accumulating it is a plain copy, not a transposing one.
     */
    private static Tensor rightGrad(Tensor a, Tensor b, Tensor g) {
        if (a.dim() == 2 && b.dim() == 2 && !b.isContiguous() && b.transpose(0, 1).isContiguous()) {
            return g.transpose(0, 1).matmul(a).transpose(0, 1);
        }
        return a.transpose(-2, -1).matmul(g);
    }

    /**
     * matmul under autocast: the operands are cast to {@code low} (recorded, so gradients flow
     * back to the float32 tensors) and multiplied by {@link #mixed}, which keeps only those copies
     * for backward.
     */
    private static Tensor autocast(Tensor a, Tensor b, DType low) {
        return mixed(a.to(low), b.to(low));
    }

    /**
     * The mixed-precision matmul autocast runs, for kernels handed low-precision operands (the
     * linear family's reference under autocast): each of a (..., m, k) and b (..., k, n) float32,
     * bfloat16 or float16, passed to the backend's matmul as they are, with float32 accumulation
     * and a float32 (..., m, n) result. Gradients are float32 products of the float32 output
     * gradient with the other operand as given.
     *
     * @throws IllegalArgumentException for an operand of fewer than 2 dims or another dtype, or
     *         operands on different backends
     */
    public static Tensor mixedMatmul(Tensor a, Tensor b) {
        Checks.sameBackend("matmul", a, b);
        for (Tensor t : new Tensor[] {a, b}) {
            if (t.dim() < 2 || !(t.dtype() == DType.FLOAT32 || t.dtype().isHalf())) {
                throw new IllegalArgumentException("matmul (mixed precision): operands must be float32, bfloat16 or float16 with at "
                        + "least 2 dims, got " + a.dtype() + " " + Arrays.toString(a.shape()) + " and " + b.dtype() + " "
                        + Arrays.toString(b.shape()));
            }
        }
        return mixed(a, b);
    }

    /**
     * The product of operands of any matmul dtype, computed without recording its parts; only the
     * operands are saved for backward, whose products take the float32 gradient with the saved
     * operand as it is.
     */
    private static Tensor mixed(Tensor a, Tensor b) {
        int[] sa = a.shape(), sb = b.shape();
        Tensor y;
        try (var noGrad = GradMode.disabled(); var f32 = Autocast.disable()) {
            y = product(a, b);
        }
        return Autograd.record("matmul", y, g -> {
            try (var f32 = Autocast.disable()) {
                return new Tensor[] {
                        a.requiresGrad() ? Reductions.sumToShape(product(g, b.transpose(-2, -1)), sa) : null,
                        b.requiresGrad() ? Reductions.sumToShape(product(a.transpose(-2, -1), g), sb) : null};
            }
        }, a, b);
    }

    /** Keeps elements on and below the diagonal {@code diagonal} of the last two dims. */
    public static Tensor tril(Tensor x, int diagonal) { return triangle("tril", x, diagonal, true); }

    /** Keeps elements on and above the diagonal {@code diagonal} of the last two dims. */
    public static Tensor triu(Tensor x, int diagonal) { return triangle("triu", x, diagonal, false); }

    /** The kept triangle from {@link Masks#triangle}, applied with where; both report their work. */
    private static Tensor triangle(String op, Tensor x, int diagonal, boolean lower) {
        if (x.dim() < 2) throw new IllegalArgumentException(op + ": needs at least 2 dims, got shape " + Arrays.toString(x.shape()));
        try (var p = Profiler.op(op, OpCategory.ELEMENTWISE)) {
            Tensor keep = Masks.triangle(x.backend(), x.size(-2), x.size(-1), diagonal, lower);
            return Elementwise.where(keep, x, Elementwise.scalarLike(x, 0));
        }
    }

    private static int[] append(int[] batch, int r, int c) {
        int[] out = Arrays.copyOf(batch, batch.length + 2);
        out[batch.length] = r;
        out[batch.length + 1] = c;
        return out;
    }
}
