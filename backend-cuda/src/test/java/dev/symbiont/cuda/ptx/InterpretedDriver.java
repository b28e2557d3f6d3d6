package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.driver.DeviceInfo;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.MemInfo;
import dev.symbiont.cuda.driver.ModuleImage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link Driver} of one simulated device that executes the modules' PTX. Streams run their
 * work at once, in order, on the calling thread: a launch has finished when {@code launch}
 * returns, which is a legal schedule of an asynchronous stream, so code above the driver cannot
 * tell. Memory is checked as compute-sanitizer checks it; the device has a fixed capacity so
 * the allocator's out-of-memory path can be exercised.
 */
public final class InterpretedDriver implements Driver {
    static final int MAX_THREADS = 1024, MAX_SHARED = 48 * 1024 + 1024 * 200;

    private record InterpretedModule(PtxProgram program) implements Module {}

    private record Kernel(PtxProgram program, Decoded code) implements Function {}

    private record InterpretedStream(int id) implements Stream {}

    private record InterpretedEvent(long nanos) implements Event {}

    private final DeviceMemory memory;
    private final AtomicLong instructions = new AtomicLong();
    /** Instructions executed by every interpreted device in this JVM, for the speed the build reports. */
    private static final AtomicLong ALL_INSTRUCTIONS = new AtomicLong();
    private final AtomicLong launches = new AtomicLong();
    private final Map<String, AtomicLong> launchesByKernel = new ConcurrentHashMap<>();

    /** A device of 4 GiB. */
    public InterpretedDriver() { this(4L << 30); }

    /** A device of {@code capacityBytes}. */
    public InterpretedDriver(long capacityBytes) { this.memory = new DeviceMemory(capacityBytes); }

    /** PTX instructions executed so far, by all threads of all launches. */
    public long instructions() { return instructions.get(); }

    /** PTX instructions executed by all interpreted devices of this JVM so far. */
    public static long allInstructions() { return ALL_INSTRUCTIONS.get(); }

    /** Kernel launches so far. */
    public long launches() { return launches.get(); }

    /** Launches of the kernel named {@code kernel} (e.g. {@code ssd_chunk_scan_f32}) so far. */
    public long launches(String kernel) {
        AtomicLong n = launchesByKernel.get(kernel);
        return n == null ? 0 : n.get();
    }

    @Override public String describe() { return "PTX interpreter"; }

    @Override public int deviceCount() { return 1; }

    @Override
    public DeviceInfo deviceInfo(int ordinal) {
        checkOrdinal(ordinal);
        return new DeviceInfo("PTX interpreter", 9, 0, memory.capacity(), 1, MAX_THREADS, 48 * 1024, 32);
    }

    @Override public void makeCurrent(int ordinal) { checkOrdinal(ordinal); }

    private static void checkOrdinal(int ordinal) {
        if (ordinal != 0) throw new CudaException("cuDeviceGet", "CUDA_ERROR_INVALID_DEVICE", "ordinal " + ordinal + " of 1 device");
    }

    @Override
    public long malloc(long bytes) {
        long address = memory.allocate(bytes);
        if (address < 0) {
            throw new CudaException("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", bytes + " bytes with " + memory.used() + " of "
                    + memory.capacity() + " in use");
        }
        return address;
    }

    @Override public void free(long address) { memory.free(address); }

    @Override public MemInfo memInfo() { return new MemInfo(memory.capacity() - memory.used(), memory.capacity()); }

    @Override public MemorySegment mallocHost(long bytes) { return Arena.ofAuto().allocate(bytes, 16); }

    @Override public void freeHost(MemorySegment pinned) { }

    @Override public Stream createStream() { return new InterpretedStream(0); }

    @Override public void destroyStream(Stream stream) { }

    @Override public void synchronize(Stream stream) { }

    @Override
    public void copyToDevice(long dst, MemorySegment source, Stream stream) {
        if (source.byteSize() > 0) memory.slice(dst, source.byteSize(), "copy to the device").copyFrom(source);
    }

    @Override
    public void copyToHost(MemorySegment target, long src, Stream stream) {
        if (target.byteSize() > 0) target.copyFrom(memory.slice(src, target.byteSize(), "copy to the host"));
    }

    @Override
    public void copyDeviceToDevice(long dst, long src, long bytes, Stream stream) {
        if (bytes == 0) return;
        MemorySegment from = memory.slice(src, bytes, "device copy");
        byte[] staged = from.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        memory.slice(dst, bytes, "device copy").copyFrom(MemorySegment.ofArray(staged));
    }

    @Override
    public void zero(long dst, long bytes, Stream stream) {
        if (bytes > 0) memory.slice(dst, bytes, "memset").fill((byte) 0);
    }

    @Override public Event record(Stream stream) { return new InterpretedEvent(System.nanoTime()); }

    @Override
    public float elapsedMillis(Event start, Event end) {
        return (((InterpretedEvent) end).nanos() - ((InterpretedEvent) start).nanos()) / 1e6f;
    }

    @Override public void destroyEvent(Event event) { }

    /** Every stream's work is done when it is queued, so the event a stream waits for has always completed. */
    @Override public void waitEvent(Stream stream, Event event) { }

    @Override public boolean isComplete(Event event) { return true; }

    @Override
    public Module load(ModuleImage image) {
        try {
            return new InterpretedModule(new PtxProgram(image.ptx(), memory));
        } catch (PtxException e) {
            throw new PtxException("module " + image.name() + ": " + e.getMessage());
        }
    }

    @Override
    public Function function(Module module, String name) {
        PtxProgram program = ((InterpretedModule) module).program();
        PtxFunction f = program.module.functions.get(name);
        if (f == null || !f.entry()) {
            throw new CudaException("cuModuleGetFunction", "CUDA_ERROR_NOT_FOUND", "no kernel " + name + " in the module");
        }
        return new Kernel(program, program.function(name));
    }

    @Override
    public void launch(Function function, Dim3 grid, Dim3 block, int sharedBytes, Stream stream, KernelArgs args) {
        Kernel k = (Kernel) function;
        Decoded code = k.code();
        if (block.count() > MAX_THREADS) {
            throw new CudaException("cuLaunchKernel", "CUDA_ERROR_INVALID_VALUE", code.name + ": " + block.count()
                    + " threads per block, the device allows " + MAX_THREADS);
        }
        if (code.staticShared + sharedBytes > MAX_SHARED) {
            throw new CudaException("cuLaunchKernel", "CUDA_ERROR_INVALID_VALUE", code.name + ": " + (code.staticShared + sharedBytes)
                    + " bytes of shared memory");
        }
        MemorySegment params = parameters(code, args.args());
        launches.incrementAndGet();
        launchesByKernel.computeIfAbsent(code.name, name -> new AtomicLong()).incrementAndGet();
        new Launch(code, params, grid, block, code.staticShared, sharedBytes, memory, n -> {
            instructions.addAndGet(n);
            ALL_INSTRUCTIONS.addAndGet(n);
        }).run();
    }

    /** The kernel's parameter bytes from the arguments, each checked against its declaration. */
    private static MemorySegment parameters(Decoded code, List<KernelArgs.Arg> args) {
        List<PtxFunction.Param> declared = code.function.params();
        if (declared.size() != args.size()) {
            throw new CudaException("cuLaunchKernel", "CUDA_ERROR_INVALID_VALUE", code.name + " takes " + declared.size()
                    + " parameters, the launch passed " + args.size());
        }
        ByteBuffer buffer = ByteBuffer.allocate(Math.max(code.paramAreaSize, 1)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < args.size(); i++) {
            KernelArgs.Arg a = args.get(i);
            PtxFunction.Param p = declared.get(i);
            if (a.size() != p.size()) {
                throw new CudaException("cuLaunchKernel", "CUDA_ERROR_INVALID_VALUE", code.name + " parameter " + i + " (" + p.name()
                        + ") is " + p.size() + " bytes, the launch passed " + a.size() + " (" + a.kind() + ")");
            }
            int at = (int) code.paramSymbols.get(p.name()).offset();
            if (a.kind() == KernelArgs.Kind.STRUCT) buffer.put(at, a.bytes());
            else if (a.size() == 4) buffer.putInt(at, (int) a.bits());
            else buffer.putLong(at, a.bits());
        }
        return MemorySegment.ofArray(buffer.array());
    }
}
