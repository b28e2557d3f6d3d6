package dev.symbiont.core.meta;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.Device;
import dev.symbiont.core.backend.HostSegments;
import dev.symbiont.core.backend.MemoryStats;
import dev.symbiont.core.backend.RandomKind;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;

import java.lang.foreign.MemorySegment;
import java.util.OptionalLong;

/**
 * PyTorch's {@code meta} device: tensors with shapes and dtypes but no data. Every op returns a
 * storage of the right size and allocates nothing, so a model can be built from a config of any
 * size to learn its parameters' shapes — how a loader checks a file's config against its tensors
 * before it allocates anything. Reading a meta tensor's values is an error naming the op.
 */
public final class MetaBackend implements Backend {
    private final long budget;
    private long made;

    /** A meta device without a limit. */
    public MetaBackend() { this(Long.MAX_VALUE); }

    /**
     * A meta device that refuses to make more than {@code budget} storages, with
     * {@link BudgetExceededException}: a config declaring a million layers stops after the budget
     * instead of building a million layers of Java objects.
     */
    public MetaBackend(long budget) { this.budget = budget; }

    /** Thrown when a build makes more storages than the budget allows. */
    public static final class BudgetExceededException extends RuntimeException {
        public BudgetExceededException(long budget) {
            super("the build made more than " + budget + " tensors");
        }
    }

    /** A buffer that has a dtype and a size and nothing else. */
    record MetaStorage(MetaBackend backend, DType dtype, long size) implements Storage {
        @Override public void release() { }
    }

    @Override public String name() { return "meta"; }

    @Override public Device device() { return new Device("meta"); }

    @Override public MemoryStats memory() { return new MemoryStats(0, 0); }

    @Override public void resetPeakMemory() { }

    private Storage of(DType dtype, long size) {
        if (++made > budget) throw new BudgetExceededException(budget);
        return new MetaStorage(this, dtype, size);
    }

    @Override public Storage allocate(DType dtype, long size) { return of(dtype, size); }

    @Override public Storage upload(DType dtype, MemorySegment source) { return of(dtype, HostSegments.elementCount("upload", dtype, source)); }

    @Override
    public void download(Storage storage, Layout layout, MemorySegment target) {
        throw new UnsupportedOperationException("download: a meta tensor of shape " + java.util.Arrays.toString(layout.shape())
                + " has no data to read");
    }

    @Override public Storage contiguous(Storage storage, Layout layout) { return of(storage.dtype(), layout.numel()); }

    @Override public void copyInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) { }

    @Override public void addInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) { }

    @Override public Storage cast(Storage storage, Layout layout, DType to) { return of(to, layout.numel()); }

    @Override public Storage full(DType dtype, long size, double value) { return of(dtype, size); }

    @Override public Storage unary(UnaryOp op, Storage x, Layout xLayout) { return of(x.dtype(), xLayout.numel()); }

    @Override
    public Storage binary(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) { return of(a.dtype(), aLayout.numel()); }

    @Override
    public Storage where(Storage condition, Layout conditionLayout, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        return of(a.dtype(), aLayout.numel());
    }

    @Override
    public Storage reduce(ReduceOp op, Storage x, Layout xLayout, int[] dims) {
        long n = xLayout.numel();
        for (int d : dims) n /= Math.max(1, xLayout.size(d));
        return of(op == ReduceOp.ARGMAX || op == ReduceOp.ARGMIN ? DType.INT64 : x.dtype(), n);
    }

    @Override public Storage cumsum(Storage x, Layout xLayout, int dim) { return of(x.dtype(), xLayout.numel()); }

    @Override
    public TopK topk(Storage x, Layout xLayout, int dim, int k, boolean largest) {
        long n = xLayout.numel() / Math.max(1, xLayout.size(dim)) * k;
        return new TopK(of(x.dtype(), n), of(DType.INT64, n));
    }

    @Override
    public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
        int r = aLayout.rank();
        return of(DType.FLOAT32, (long) aLayout.numel() / aLayout.size(r - 1) * bLayout.size(r - 1));
    }

    @Override
    public Storage indexSelect(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) {
        return of(x.dtype(), (long) xLayout.numel() / Math.max(1, xLayout.size(dim)) * indexLayout.numel());
    }

    @Override
    public Storage gather(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) { return of(x.dtype(), indexLayout.numel()); }

    @Override
    public Storage scatterAdd(Storage base, Layout baseLayout, int dim, Storage index, Layout indexLayout, Storage src, Layout srcLayout) {
        return of(base.dtype(), baseLayout.numel());
    }

    @Override public Storage random(RandomKind kind, long size, long seed, long offset) { return of(DType.FLOAT32, size); }

    @Override
    public IndexCheck checkIndex(String op, Storage ids, Layout idsLayout, long bound, OptionalLong ignore) {
        return new IndexCheck(of(DType.INT64, idsLayout.numel()), of(DType.FLOAT32, idsLayout.numel()));
    }
}
