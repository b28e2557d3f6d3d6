package dev.symbiont.core.ops;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;

/** sum, mean, var, max, min, logsumexp, argmax, argmin and cumsum over dims, with keepdim. */
public final class Reductions {
    private Reductions() {}

    public static Tensor sum(Tensor x, int[] dims, boolean keepdim) {
        Checks.float32("sum", x);
        int[] d = Checks.dims("sum", dims, x.shape());
        try (var p = Profiled.reduction("sum", x, d)) {
            Tensor kept = reduce(ReduceOp.SUM, x, d);
            int[] inShape = x.shape();
            Tensor y = keepdim ? kept : dropDims(kept, d);
            return Autograd.record("sum", y, g -> new Tensor[] {g.reshape(kept.shape()).expand(inShape)}, x);
        }
    }

    /** Composed of sum and div, which report the work. */
    public static Tensor mean(Tensor x, int[] dims, boolean keepdim) {
        try (var p = Profiler.op("mean", OpCategory.REDUCTION)) {
            int[] d = Checks.dims("mean", dims, x.shape());
            return sum(x, d, keepdim).div(count(x, d));
        }
    }

    /** Variance with {@code correction} subtracted from the count (1 = unbiased, like torch.var). */
    public static Tensor var(Tensor x, int[] dims, int correction, boolean keepdim) {
        try (var p = Profiler.op("var", OpCategory.REDUCTION)) {
            int[] d = Checks.dims("var", dims, x.shape());
            Tensor centered = x.sub(mean(x, d, true));
            return sum(centered.square(), d, keepdim).div(Math.max(0, count(x, d) - correction));
        }
    }

    public static Tensor max(Tensor x, int[] dims, boolean keepdim) { return extreme(ReduceOp.MAX, "max", x, dims, keepdim); }

    public static Tensor min(Tensor x, int[] dims, boolean keepdim) { return extreme(ReduceOp.MIN, "min", x, dims, keepdim); }

    private static Tensor extreme(ReduceOp op, String name, Tensor x, int[] dims, boolean keepdim) {
        Checks.float32(name, x);
        int[] d = Checks.dims(name, dims, x.shape());
        try (var p = Profiled.reduction(name, x, d)) {
            Tensor kept = reduce(op, x, d);
            Tensor y = keepdim ? kept : dropDims(kept, d);
            return Autograd.record(name, y, g -> {
                // The gradient is shared evenly between tied extremes, as torch.amax does.
                Tensor hits = x.eq(kept);
                Tensor share = hits.div(sum(hits, d, true));
                return new Tensor[] {share.mul(g.reshape(kept.shape()))};
            }, x);
        }
    }

    public static Tensor argmax(Tensor x, int dim, boolean keepdim) { return arg(ReduceOp.ARGMAX, "argmax", x, dim, keepdim); }

    public static Tensor argmin(Tensor x, int dim, boolean keepdim) { return arg(ReduceOp.ARGMIN, "argmin", x, dim, keepdim); }

    private static Tensor arg(ReduceOp op, String name, Tensor x, int dim, boolean keepdim) {
        Checks.float32(name, x);
        int d = x.layout().dim(name, dim);
        if (x.size(d) == 0) throw new IllegalArgumentException(name + ": dim " + dim + " of shape " + Arrays.toString(x.shape()) + " is empty");
        int[] dims = {d};
        try (var p = Profiled.reduction(name, x, dims)) {
            Tensor kept = reduce(op, x, dims);
            return keepdim ? kept : dropDims(kept, dims);
        }
    }

    public static Tensor cumsum(Tensor x, int dim) {
        Checks.float32("cumsum", x);
        int d = x.layout().dim("cumsum", dim);
        try (var p = Profiled.pass("cumsum", OpCategory.REDUCTION, x, 1)) {
            Tensor y = Tensor.of(x.backend().cumsum(x.storage(), x.layout(), d), x.shape());
            // d/dx_i of sum_{j<=k} x_j is the suffix sum of g from i: total - prefix + g.
            return Autograd.record("cumsum", y, g -> new Tensor[] {sum(g, new int[] {d}, true).sub(cumsum(g, d)).add(g)}, x);
        }
    }

    /**
     * log(Σ exp(x)) over dims (torch.logsumexp), shifted by the slice's max so that values of
     * 1000 do not overflow; a slice of all -inf gives -inf and an empty one -inf, as in PyTorch.
     * The gradient is softmax-shaped: g · exp(x − y).
     */
    public static Tensor logsumexp(Tensor x, int[] dims, boolean keepdim) {
        Checks.float32("logsumexp", x);
        int[] d = Checks.dims("logsumexp", dims, x.shape());
        // Composed of max, sub, exp, sum and log, which report the work.
        try (var p = Profiler.op("logsumexp", OpCategory.REDUCTION)) {
            Tensor kept;
            try (var off = GradMode.disabled()) {
                Tensor xd = x.detach();
                Tensor zero = Elementwise.scalarLike(x, 0.0);
                Tensor shift = count(x, d) == 0 ? sum(xd, d, true).mul(0.0) : reduce(ReduceOp.MAX, xd, d);
                // An infinite max (an all -inf slice, or one holding +inf) would make x − max NaN: shift by 0 there.
                shift = Elementwise.where(shift.abs().eq(Double.POSITIVE_INFINITY), zero, shift);
                kept = sum(xd.sub(shift).exp(), d, true).log().add(shift);
            }
            Tensor y = keepdim ? kept : dropDims(kept, d);
            Tensor lse = kept;
            return Autograd.record("logsumexp", y, g -> new Tensor[] {g.reshape(lse.shape()).mul(x.sub(lse).exp())}, x);
        }
    }

    /** Sums a broadcast gradient back to the shape it was broadcast from. */
    public static Tensor sumToShape(Tensor g, int[] shape) {
        int[] gs = g.shape();
        if (Arrays.equals(gs, shape)) return g;
        int lead = gs.length - shape.length;
        int count = 0;
        int[] dims = new int[gs.length];
        for (int i = 0; i < gs.length; i++) {
            if (i < lead || (shape[i - lead] == 1 && gs[i] != 1)) dims[count++] = i;
        }
        Tensor s = count == 0 ? g : sum(g, Arrays.copyOf(dims, count), true);
        return s.reshape(shape);
    }

    private static Tensor reduce(ReduceOp op, Tensor x, int[] dims) {
        int[] keptShape = x.shape();
        for (int d : dims) keptShape[d] = 1;
        if (op != ReduceOp.SUM) {
            for (int d : dims) {
                if (x.size(d) == 0) {
                    throw new IllegalArgumentException(op.opName() + ": cannot reduce over empty dim " + d
                            + " of shape " + Arrays.toString(x.shape()));
                }
            }
        }
        return Tensor.of(x.backend().reduce(op, x.storage(), x.layout(), dims), keptShape);
    }

    private static Tensor dropDims(Tensor kept, int[] dims) {
        int[] shape = kept.shape();
        int[] out = new int[shape.length - dims.length];
        for (int i = 0, j = 0, k = 0; i < shape.length; i++) {
            if (k < dims.length && dims[k] == i) { k++; continue; }
            out[j++] = shape[i];
        }
        return new Tensor(kept.storage(), Layout.contiguous(out));
    }

    private static int count(Tensor x, int[] dims) {
        int n = 1;
        for (int d : dims) n *= x.size(d);
        return n;
    }
}
