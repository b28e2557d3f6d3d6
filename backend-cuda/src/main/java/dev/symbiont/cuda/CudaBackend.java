package dev.symbiont.cuda;

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
import dev.symbiont.core.fused.Family;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.linear.LinearKernels;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.memory.CachingAllocator;
import dev.symbiont.cuda.memory.DeviceAllocator;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The CUDA backend of one device: its primary context, one stream every op is queued on in
 * order, a caching allocator, the kernel groups loaded on first use, and the op groups that
 * launch them. The same code runs over JCuda on a GPU and over the PTX interpreter in tests.
 *
 * <p>Ops return as soon as their kernels are queued. {@link #synchronize()} waits; host reads
 * (downloads) wait for the work before them. Errors a kernel finds in the data (an index out of
 * range) are raised with the SPI's message at the next synchronisation or host read.
 */
public final class CudaBackend implements Backend {
    private final Driver driver;
    private final int ordinal;
    private final Driver.Stream stream;
    private final DeviceAllocator allocator;
    private final Kernels kernels;
    private final PinnedStaging staging;
    private final DeviceErrors errors;
    private final CudaCopies copies;
    private final CudaElementwise elementwise;
    private final CudaRandom random;
    private final CudaIndexCheck indexCheck;
    private final CudaReductions reductions;
    private final CudaIndexing indexing;
    private final CudaMatmul matmul;
    /** The fused families with kernels of this backend; the others run their reference. */
    private final Map<Family<?>, Object> families = new HashMap<>();

    /** The backend of device {@code ordinal} of {@code driver}. */
    public CudaBackend(Driver driver, int ordinal) {
        this.driver = driver;
        this.ordinal = ordinal;
        driver.makeCurrent(ordinal);
        this.stream = driver.createStream();
        this.allocator = new CachingAllocator(driver);
        this.kernels = new Kernels(driver, stream);
        this.staging = new PinnedStaging(driver, stream);
        this.errors = new DeviceErrors(this, driver, stream);
        this.copies = new CudaCopies(this);
        this.elementwise = new CudaElementwise(this);
        this.random = new CudaRandom(this);
        this.indexCheck = new CudaIndexCheck(this);
        this.reductions = new CudaReductions(this);
        this.indexing = new CudaIndexing(this);
        this.matmul = new CudaMatmul(this);
        families.put(NormKernels.FAMILY, new CudaNormKernels(this));
        families.put(ActivationKernels.FAMILY, new CudaActivationKernels(this));
        families.put(OptimKernels.FAMILY, new CudaOptimKernels(this));
        families.put(AttentionKernels.FAMILY, new CudaAttentionKernels(this));
        families.put(MoeKernels.FAMILY, new CudaMoeKernels(this));
        families.put(ConvKernels.FAMILY, new CudaConvKernels(this));
        families.put(LinearKernels.FAMILY, new CudaLinearKernels(this));
        families.put(ScanKernels.FAMILY, new CudaScanKernels(this));
    }

    @Override public String name() { return "cuda"; }

    @Override public Device device() { return new Device("cuda", ordinal); }

    /** The driver this backend runs on (JCuda or the interpreter). */
    public Driver driver() { return driver; }

    // ---- what the op groups share --------------------------------------------------------------

    /** Makes this device current on the calling thread; every entry point (and a library using the device) calls it first. */
    public void enter() { driver.makeCurrent(ordinal); }

    Kernels kernels() { return kernels; }

    /**
     * The stream every op of this backend is queued on, in order: a library with its own stream
     * (NCCL) records an event here and waits for it, so it sees what the ops before it wrote.
     */
    public Driver.Stream stream() { return stream; }

    DeviceErrors errors() { return errors; }

    /** The GEMM route matmul runs on (cuBLAS, or the own kernel), for the families' grouped products. */
    dev.symbiont.cuda.blas.Blas blas() { return matmul.blas(); }

    CudaIndexCheck indexCheck() { return indexCheck; }

    /** This backend's storage behind {@code s}; core has already checked it belongs here. */
    static CudaStorage storage(Storage s) { return (CudaStorage) s; }

    // ---- memory and transfer ---------------------------------------------------------------------

    @Override
    public MemoryStats memory() { return new MemoryStats(allocator.allocatedBytes(), allocator.peakBytes()); }

    @Override
    public void resetPeakMemory() { allocator.resetPeak(); }

    /** Returns the cached free memory to the driver ({@code torch.cuda.empty_cache()}). */
    public void emptyCache() {
        enter();
        driver.synchronize(stream);
        allocator.emptyCache();
    }

    @Override
    public CudaStorage allocate(DType dtype, long size) {
        CudaStorage s = empty(dtype, size);
        if (size > 0) driver.zero(s.address(), s.bytes(), stream);
        return s;
    }

    @Override
    public CudaStorage empty(DType dtype, long size) {
        if (size < 0) throw new IllegalArgumentException("cuda allocate: negative size " + size + " of " + dtype);
        enter();
        long bytes = Math.max(1, size) * dtype.byteSize();
        return new CudaStorage(this, dtype, size, allocator.allocate(bytes), allocator);
    }

    @Override
    public Storage upload(DType dtype, MemorySegment source) {
        long count = HostSegments.elementCount("upload", dtype, source);
        CudaStorage s = empty(dtype, count);
        staging.upload(s.address(), source);
        return s;
    }

    @Override
    public void download(Storage storage, Layout layout, MemorySegment target) {
        DType dtype = storage.dtype();
        long count = layout.numel();
        HostSegments.checkRoom("download", dtype, count, target);
        enter();
        boolean whole = layout.isContiguous();
        CudaStorage source = whole ? storage(storage) : copies.contiguous(storage(storage), layout);
        try {
            long first = whole ? layout.offset() : 0;
            staging.download(target.asSlice(0, count * dtype.byteSize()), source.address(first));
            errors.raise();
        } finally {
            if (!whole) source.release();
        }
    }

    @Override
    public void synchronize() {
        enter();
        driver.synchronize(stream);
        errors.raise();
    }

    // ---- the op groups ---------------------------------------------------------------------------

    @Override
    public Storage contiguous(Storage storage, Layout layout) { return copies.contiguous(storage(storage), layout); }

    @Override
    public void copyInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) {
        copies.copyInto(storage(dst), dstLayout, storage(src), srcLayout);
    }

    @Override
    public void addInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) {
        copies.addInto(storage(dst), dstLayout, storage(src), srcLayout);
    }

    @Override
    public Storage cast(Storage storage, Layout layout, DType to) { return copies.cast(storage(storage), layout, to); }

    @Override
    public Storage full(DType dtype, long size, double value) { return copies.full(dtype, size, value); }

    @Override
    public Storage unary(UnaryOp op, Storage x, Layout xLayout) { return elementwise.unary(op, storage(x), xLayout); }

    @Override
    public Storage binary(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        return elementwise.binary(op, storage(a), aLayout, storage(b), bLayout);
    }

    @Override
    public Storage where(Storage condition, Layout conditionLayout, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        return elementwise.where(storage(condition), conditionLayout, storage(a), aLayout, storage(b), bLayout);
    }

    @Override
    public Storage reduce(ReduceOp op, Storage x, Layout xLayout, int[] dims) { return reductions.reduce(op, storage(x), xLayout, dims); }

    @Override
    public Storage cumsum(Storage x, Layout xLayout, int dim) { return reductions.cumsum(storage(x), xLayout, dim); }

    @Override
    public TopK topk(Storage x, Layout xLayout, int dim, int k, boolean largest) {
        return reductions.topk(storage(x), xLayout, dim, k, largest);
    }

    @Override
    public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
        return matmul.matmul(storage(a), aLayout, storage(b), bLayout);
    }

    @Override
    public Storage indexSelect(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) {
        return indexing.indexSelect(storage(x), xLayout, dim, storage(index), indexLayout);
    }

    @Override
    public Storage gather(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) {
        return indexing.gather(storage(x), xLayout, dim, storage(index), indexLayout);
    }

    @Override
    public Storage scatterAdd(Storage base, Layout baseLayout, int dim, Storage index, Layout indexLayout,
                              Storage src, Layout srcLayout) {
        return indexing.scatterAdd(storage(base), baseLayout, dim, storage(index), indexLayout, storage(src), srcLayout);
    }

    @Override
    public Storage random(RandomKind kind, long size, long seed, long offset) { return random.random(kind, size, seed, offset); }

    @Override
    public IndexCheck checkIndex(String op, Storage ids, Layout idsLayout, long bound, OptionalLong ignore) {
        return indexCheck.checkIndex(op, storage(ids), idsLayout, bound, ignore);
    }

    @Override
    public <K> K fused(Family<K> family) { return family.contract().cast(families.get(family)); }

    @Override
    public String toString() { return "CudaBackend[" + device() + " on " + driver.describe() + "]"; }
}
