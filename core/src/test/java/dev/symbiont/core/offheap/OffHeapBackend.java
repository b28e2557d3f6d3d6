package dev.symbiont.core.offheap;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.HostSegments;
import dev.symbiont.core.backend.MemoryStats;
import dev.symbiont.core.backend.RandomKind;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.memory.MemoryTracker;
import dev.symbiont.core.reference.ReferenceBackend;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * A backend whose storages are native memory ({@link OffHeapStorage}), not Java arrays, and
 * which does not declare {@link dev.symbiont.core.heap.HeapMemory}: the stand-in for a device
 * backend that proves core and the conformance kit hold for storages core cannot look into.
 *
 * <p>Transfers are its own (bulk copies between host segments and its memory, as a device's
 * memcpy would be). Every other primitive copies its operands, whole, to a private
 * {@link ReferenceBackend} through the segment transfers, runs the reference primitive there and
 * copies the result into a new native buffer; the heap copies are released at once. It has no
 * fused kernels, so every family runs its reference composed from these primitives.
 */
public final class OffHeapBackend implements Backend {
    private final ReferenceBackend heap = new ReferenceBackend();
    private final MemoryTracker tracker = new MemoryTracker();

    @Override public String name() { return "offheap"; }

    @Override public MemoryStats memory() { return tracker.stats(); }

    @Override public void resetPeakMemory() { tracker.resetPeak(); }

    // ---- memory and transfer: native copies ---------------------------------------------------

    @Override
    public Storage allocate(DType dtype, long size) { return OffHeapStorage.allocate(this, tracker, dtype, size); }

    @Override
    public Storage upload(DType dtype, MemorySegment source) {
        OffHeapStorage out = OffHeapStorage.allocate(this, tracker, dtype, HostSegments.elementCount("upload", dtype, source));
        MemorySegment.copy(source, 0, out.segment("upload"), 0, source.byteSize());
        return out;
    }

    /** A contiguous layout is one copy from native memory; a strided one is made contiguous first. */
    @Override
    public void download(Storage storage, Layout layout, MemorySegment target) {
        OffHeapStorage s = own("download", storage);
        HostSegments.checkRoom("download", s.dtype(), layout.numel(), target);
        checkInside("download", s, layout);
        if (!layout.isContiguous()) {
            Storage packed = contiguous(storage, layout);
            try {
                download(packed, Layout.contiguous(layout.shape()), target);
            } finally {
                packed.release();
            }
            return;
        }
        long bytes = (long) layout.numel() * s.dtype().byteSize();
        MemorySegment.copy(s.segment("download"), (long) layout.offset() * s.dtype().byteSize(), target, 0, bytes);
        Reference.reachabilityFence(s);
    }

    @Override
    public Storage contiguous(Storage storage, Layout layout) {
        return onHeap("contiguous", h -> heap.contiguous(h.in(storage), layout), storage);
    }

    /** Runs the reference copy on heap copies of both, then writes dst's copy back to its native memory. */
    @Override
    public void copyInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) {
        OffHeapStorage d = own("copyInto", dst);
        own("copyInto", src);
        try (Operands h = new Operands("copyInto")) {
            Storage hd = h.in(dst);
            heap.copyInto(hd, dstLayout, h.in(src), srcLayout);
            heap.download(hd, Layout.contiguous(Math.toIntExact(hd.size())), d.segment("copyInto"));
            Reference.reachabilityFence(d);
        }
    }

    @Override
    public Storage cast(Storage storage, Layout layout, DType to) {
        return onHeap("cast", h -> heap.cast(h.in(storage), layout, to), storage);
    }

    @Override
    public Storage full(DType dtype, long size, double value) {
        return onHeap("full", h -> heap.full(dtype, size, value));
    }

    // ---- every other primitive: the reference's, on heap copies -------------------------------

    @Override
    public Storage unary(UnaryOp op, Storage x, Layout xLayout) {
        return onHeap("unary " + op, h -> heap.unary(op, h.in(x), xLayout), x);
    }

    @Override
    public Storage binary(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        return onHeap("binary " + op, h -> heap.binary(op, h.in(a), aLayout, h.in(b), bLayout), a, b);
    }

    @Override
    public Storage where(Storage condition, Layout conditionLayout, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        return onHeap("where", h -> heap.where(h.in(condition), conditionLayout, h.in(a), aLayout, h.in(b), bLayout),
                condition, a, b);
    }

    @Override
    public Storage reduce(ReduceOp op, Storage x, Layout xLayout, int[] dims) {
        return onHeap("reduce " + op, h -> heap.reduce(op, h.in(x), xLayout, dims), x);
    }

    @Override
    public Storage cumsum(Storage x, Layout xLayout, int dim) {
        return onHeap("cumsum", h -> heap.cumsum(h.in(x), xLayout, dim), x);
    }

    @Override
    public TopK topk(Storage x, Layout xLayout, int dim, int k, boolean largest) {
        own("topk", x);
        try (Operands h = new Operands("topk")) {
            TopK r = heap.topk(h.in(x), xLayout, dim, k, largest);
            return new TopK(h.out(r.values()), h.out(r.indices()));
        }
    }

    @Override
    public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
        return onHeap("matmul", h -> heap.matmul(h.in(a), aLayout, h.in(b), bLayout), a, b);
    }

    @Override
    public Storage indexSelect(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) {
        return onHeap("indexSelect", h -> heap.indexSelect(h.in(x), xLayout, dim, h.in(index), indexLayout), x, index);
    }

    @Override
    public Storage gather(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) {
        return onHeap("gather", h -> heap.gather(h.in(x), xLayout, dim, h.in(index), indexLayout), x, index);
    }

    @Override
    public Storage scatterAdd(Storage base, Layout baseLayout, int dim, Storage index, Layout indexLayout,
                              Storage src, Layout srcLayout) {
        return onHeap("scatterAdd", h -> heap.scatterAdd(h.in(base), baseLayout, dim, h.in(index), indexLayout,
                h.in(src), srcLayout), base, index, src);
    }

    @Override
    public Storage random(RandomKind kind, long size, long seed, long offset) {
        return onHeap("random", h -> heap.random(kind, size, seed, offset));
    }

    @Override
    public IndexCheck checkIndex(String op, Storage ids, Layout idsLayout, long bound, OptionalLong ignore) {
        own(op, ids);
        try (Operands h = new Operands(op)) {
            IndexCheck r = heap.checkIndex(op, h.in(ids), idsLayout, bound, ignore);
            return new IndexCheck(h.out(r.ids()), h.out(r.keep()));
        }
    }

    // ---- moving operands between native memory and the heap reference --------------------------

    /** Runs {@code primitive} on heap copies of {@code operands} and returns its result as a native buffer. */
    private Storage onHeap(String op, Function<Operands, Storage> primitive, Storage... operands) {
        for (Storage s : operands) own(op, s);
        try (Operands h = new Operands(op)) {
            return h.out(primitive.apply(h));
        }
    }

    /**
     * The heap copies one primitive made, released when it closes: {@link #in} copies a native
     * operand (all of it, so any layout into it is valid there), {@link #out} moves a heap result
     * into native memory.
     */
    private final class Operands implements AutoCloseable {
        private final String op;
        private final java.util.List<Storage> copies = new java.util.ArrayList<>();

        Operands(String op) { this.op = op; }

        Storage in(Storage storage) {
            OffHeapStorage s = own(op, storage);
            Storage copy = heap.upload(s.dtype(), s.segment(op));
            Reference.reachabilityFence(s);
            copies.add(copy);
            return copy;
        }

        Storage out(Storage result) {
            copies.add(result);
            OffHeapStorage out = OffHeapStorage.allocate(OffHeapBackend.this, tracker, result.dtype(), result.size());
            heap.download(result, Layout.contiguous(Math.toIntExact(result.size())), out.segment(op));
            return out;
        }

        @Override
        public void close() {
            for (Storage s : copies) s.release();
        }
    }

    /** {@code storage} as one of this backend's; anything else is an error naming the op. */
    private OffHeapStorage own(String op, Storage storage) {
        if (storage instanceof OffHeapStorage s && s.backend() == this) return s;
        throw new IllegalArgumentException(op + ": expected a storage of this " + name() + " backend, got one of "
                + storage.backend().name());
    }

    private static void checkInside(String op, Storage s, Layout layout) {
        if (layout.numel() > 0 && (layout.offset() < 0 || layout.maxIndex() >= s.size())) {
            throw new IllegalArgumentException(op + ": " + layout + " does not fit in a storage of " + s.size() + " elements");
        }
    }
}
