package dev.symbiont.cuda.driver;

import java.lang.foreign.MemorySegment;

/**
 * The CUDA driver calls the backend makes, and nothing else: one seam, two devices. The JCuda
 * implementation drives a real GPU through {@code libcuda.so.1}; the PTX interpreter (test scope)
 * executes the very PTX the build ships, with bounds, race and barrier checks. Everything above
 * this interface — allocator, streams, launch configuration, every op — is the same code on both.
 *
 * <p>Device memory is named by {@code long} addresses in the device's flat address space (what
 * {@code cuMemAlloc} returns), so an address plus a byte offset is again an address, and a
 * {@code java.lang.foreign} library binding (cuBLAS) can take it as a {@code void*}.
 *
 * <p>Every call acts on the device whose context is current on the calling thread
 * ({@link #makeCurrent}); a failing call throws {@link CudaException} naming the call and the
 * driver's error. Calls that take a {@link Stream} are queued on it and may return before the
 * work is done; {@link #synchronize} waits.
 */
public interface Driver {

    /** A loaded module (a fatbin or PTX image). */
    interface Module {}

    /** A kernel of a loaded module. */
    interface Function {}

    /** An in-order queue of device work. */
    interface Stream {}

    /** A point in a stream: for timing, and for ordering one stream after another. */
    interface Event {}

    /** One line for {@code symbiont backends}: the implementation and versions, e.g. "JCuda 12.6.0, driver 13.0". */
    String describe();

    /** Number of devices; 0 when the driver finds none. */
    int deviceCount();

    /** What device {@code ordinal} is. */
    DeviceInfo deviceInfo(int ordinal);

    /**
     * Makes device {@code ordinal}'s primary context current on the calling thread, retaining it
     * on first use. Cheap when it already is: the backend calls it before every use of the device,
     * from whichever thread (a CPU worker team, a data loader) touches it.
     */
    void makeCurrent(int ordinal);

    // ---- memory ------------------------------------------------------------------------------

    /** {@code bytes} of device memory (256-byte aligned); a {@link CudaException} with {@code outOfMemory()} when none is left. */
    long malloc(long bytes);

    /** Returns memory from {@link #malloc}. */
    void free(long address);

    /** Free and total bytes of the current device. */
    MemInfo memInfo();

    /** Page-locked host memory of {@code bytes}, for transfers the device can run asynchronously. */
    MemorySegment mallocHost(long bytes);

    /** Returns memory from {@link #mallocHost}. */
    void freeHost(MemorySegment pinned);

    // ---- streams, copies, events -----------------------------------------------------------------

    Stream createStream();

    void destroyStream(Stream stream);

    /** Blocks until all work queued on {@code stream} is done. */
    void synchronize(Stream stream);

    /** Copies {@code source.byteSize()} bytes from host memory to {@code dst}. */
    void copyToDevice(long dst, MemorySegment source, Stream stream);

    /** Copies {@code target.byteSize()} bytes from {@code src} to host memory. */
    void copyToHost(MemorySegment target, long src, Stream stream);

    void copyDeviceToDevice(long dst, long src, long bytes, Stream stream);

    /** Sets {@code bytes} bytes at {@code dst} to zero. */
    void zero(long dst, long bytes, Stream stream);

    Event record(Stream stream);

    /** Milliseconds between two recorded events, waiting for {@code end}. */
    float elapsedMillis(Event start, Event end);

    void destroyEvent(Event event);

    /**
     * Makes the work queued on {@code stream} after this call wait until {@code event} has
     * completed ({@code cuStreamWaitEvent}), without blocking the host: how a library that runs on
     * its own stream (NCCL) is ordered after the backend's kernels, and they after it.
     */
    void waitEvent(Stream stream, Event event);

    /** Whether the work before {@code event} has completed ({@code cuEventQuery}), without blocking. */
    boolean isComplete(Event event);

    // ---- modules and launches --------------------------------------------------------------------

    /**
     * Loads a kernel module: the JCuda driver loads the image's fatbin (cubins, and PTX the
     * driver compiles for other GPUs); the interpreter parses its PTX text.
     */
    Module load(ModuleImage image);

    /** The kernel {@code name} of a module; an error naming the module and kernel when it has none. */
    Function function(Module module, String name);

    /**
     * Queues a launch of {@code grid} blocks of {@code block} threads with {@code sharedBytes}
     * of dynamic shared memory. {@code args} must match the kernel's parameters in order and size.
     */
    void launch(Function function, Dim3 grid, Dim3 block, int sharedBytes, Stream stream, KernelArgs args);
}
