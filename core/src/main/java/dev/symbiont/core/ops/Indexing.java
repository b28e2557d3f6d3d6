package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * index_select, gather, scatter_add, embedding, one_hot and topk. Lookups move data without
 * arithmetic, so they report bytes (picked values read and written, plus the index) and no
 * FLOPs; scatter_add reports one add per source element.
 */
public final class Indexing {
    private Indexing() {}

    /** x's entries at a 1-D int index along dim. */
    public static Tensor indexSelect(Tensor x, int dim, Tensor index) {
        Checks.sameBackend("index_select", x, index);
        Checks.integer("index_select", "index", index);
        Checks.rank("index_select", "index", index, 1);
        int d = x.layout().dim("index_select", dim);
        int[] outShape = x.shape();
        outShape[d] = index.size(0);
        long picked = (long) Layout.numel("index_select", outShape) * x.dtype().byteSize();
        try (var p = Profiler.op(x.backend(), "index_select", OpCategory.INDEXING, 0, 2 * picked + Profiled.bytes(index))) {
            Tensor y = Tensor.of(x.backend().indexSelect(x.storage(), x.layout(), d, index.storage(), index.layout()), outShape);
            int[] inShape = x.shape();
            return Autograd.record("index_select", y, g -> {
                // Scatter each gradient row back to the row it was picked from (repeats add up).
                int[] viewShape = new int[inShape.length];
                Arrays.fill(viewShape, 1);
                viewShape[d] = index.size(0);
                Tensor spread = index.reshape(viewShape).expand(g.shape());
                return new Tensor[] {scatterAdd(zeros(g.backend(), inShape), d, spread, g)};
            }, x);
        }
    }

    /** out[i][j] = x[index[i][j]][j] for dim 0; index has x's rank. */
    public static Tensor gather(Tensor x, int dim, Tensor index) {
        Checks.sameBackend("gather", x, index);
        Checks.integer("gather", "index", index);
        int d = x.layout().dim("gather", dim);
        checkIndexShape("gather", x.shape(), index.shape(), d);
        long picked = (long) index.numel() * x.dtype().byteSize();
        try (var p = Profiler.op(x.backend(), "gather", OpCategory.INDEXING, 0, 2 * picked + Profiled.bytes(index))) {
            Tensor y = Tensor.of(x.backend().gather(x.storage(), x.layout(), d, index.storage(), index.layout()), index.shape());
            int[] inShape = x.shape();
            return Autograd.record("gather", y, g -> new Tensor[] {scatterAdd(zeros(g.backend(), inShape), d, index, g)}, x);
        }
    }

    /** A copy of base with src added at index along dim. */
    public static Tensor scatterAdd(Tensor base, int dim, Tensor index, Tensor src) {
        Checks.sameBackend("scatter_add", base, index, src);
        Checks.integer("scatter_add", "index", index);
        Checks.float32("scatter_add", base, src);
        int d = base.layout().dim("scatter_add", dim);
        if (!Arrays.equals(index.shape(), src.shape())) {
            throw new IllegalArgumentException("scatter_add: index shape " + Arrays.toString(index.shape())
                    + " differs from src shape " + Arrays.toString(src.shape()));
        }
        checkIndexShape("scatter_add", base.shape(), index.shape(), d);
        // A copy of base, then one add per source element.
        try (var p = Profiler.op(base.backend(), "scatter_add", OpCategory.INDEXING, src.numel(), 2 * Profiled.bytes(base) + Profiled.bytes(index) + Profiled.bytes(src))) {
            Tensor y = Tensor.of(base.backend().scatterAdd(base.storage(), base.layout(), d, index.storage(), index.layout(),
                    src.storage(), src.layout()), base.shape());
            return Autograd.record("scatter_add", y, g -> new Tensor[] {g, null, src.requiresGrad() ? gather(g, d, index) : null},
                    base, index, src);
        }
    }

    /** Rows of weight (num, dim) picked by integer ids of any shape: result (ids..., dim). */
    public static Tensor embedding(Tensor weight, Tensor ids) {
        Checks.rank("embedding", "weight", weight, 2);
        Checks.integer("embedding", "ids", ids);
        int[] outShape = Arrays.copyOf(ids.shape(), ids.dim() + 1);
        outShape[ids.dim()] = weight.size(1);
        try (var p = Profiler.op("embedding", OpCategory.INDEXING)) {
            return indexSelect(weight, 0, ids.reshape(ids.numel())).reshape(outShape);
        } catch (IndexOutOfBoundsException e) {
            throw new IndexOutOfBoundsException("embedding: an id is outside [0, " + weight.size(0) + ") for weight of shape "
                    + Arrays.toString(weight.shape()) + " (ids of shape " + Arrays.toString(ids.shape()) + "): " + e.getMessage());
        }
    }

    /** float32 one-hot rows (ids..., numClasses) for integer ids in [0, numClasses). */
    public static Tensor oneHot(Tensor ids, int numClasses) {
        Checks.integer("one_hot", "ids", ids);
        if (numClasses <= 0) throw new IllegalArgumentException("one_hot: numClasses must be positive, got " + numClasses);
        try (var p = Profiler.op("one_hot", OpCategory.INDEXING)) {
            // Checked on the backend, then one 1 scattered per row: nothing crosses to the host.
            int[] outShape = Arrays.copyOf(ids.shape(), ids.dim() + 1);
            outShape[ids.dim()] = numClasses;
            Layout.numel("one_hot", outShape); // the result must fit in one tensor
            Backend be = ids.backend();
            Backend.IndexCheck checked = be.checkIndex("one_hot", ids.storage(), ids.layout(), numClasses, OptionalLong.empty());
            int n = ids.numel();
            return scatterAdd(zeros(be, new int[] {n, numClasses}), 1, Tensor.of(checked.ids(), n, 1),
                    Tensor.of(checked.keep(), n, 1)).reshape(outShape);
        }
    }

    /** The k largest (or smallest) values along dim, sorted, and their int64 indices. */
    public static TopK topk(Tensor x, int k, int dim, boolean largest) {
        Checks.float32("topk", x);
        int d = x.layout().dim("topk", dim);
        if (k < 0 || k > x.size(d)) {
            throw new IllegalArgumentException("topk: k=" + k + " out of range for dim " + dim + " of size " + x.size(d)
                    + " in shape " + Arrays.toString(x.shape()));
        }
        // One comparison per element; reads x, writes k values and k int64 indices per row.
        long picked = (long) x.numel() / Math.max(1, x.size(d)) * k;
        try (var p = Profiler.op(x.backend(), "topk", OpCategory.INDEXING, x.numel(), Profiled.bytes(x) + 12 * picked)) {
            Backend.TopK r = x.backend().topk(x.storage(), x.layout(), d, k, largest);
            int[] outShape = x.shape();
            outShape[d] = k;
            Tensor indices = Tensor.of(r.indices(), outShape);
            Tensor values = Tensor.of(r.values(), outShape);
            int[] inShape = x.shape();
            values = Autograd.record("topk", values, g -> new Tensor[] {scatterAdd(zeros(g.backend(), inShape), d, indices, g)}, x);
            return new TopK(values, indices);
        }
    }

    /** topk's result: values (float32) and indices (int64) of the same shape. */
    public record TopK(Tensor values, Tensor indices) {}

    static Tensor zeros(Backend backend, int[] shape) {
        return Creation.full(backend, 0, DType.FLOAT32, shape);
    }

    private static void checkIndexShape(String op, int[] shape, int[] indexShape, int dim) {
        boolean ok = indexShape.length == shape.length;
        for (int i = 0; ok && i < shape.length; i++) ok = i == dim || indexShape[i] <= shape[i];
        if (!ok) {
            throw new IllegalArgumentException(op + ": index shape " + Arrays.toString(indexShape) + " must have the rank of "
                    + Arrays.toString(shape) + " and be no larger in every dim but " + dim);
        }
    }
}
