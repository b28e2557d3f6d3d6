package dev.symbiont.cuda.jcuda;

import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.driver.DeviceInfo;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.MemInfo;
import dev.symbiont.cuda.driver.ModuleImage;
import jcuda.JCudaVersion;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE;
import static jcuda.driver.CUevent_flags.CU_EVENT_DEFAULT;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
import static jcuda.driver.CUstream_flags.CU_STREAM_NON_BLOCKING;
import static jcuda.driver.JCudaDriver.*;

/**
 * The {@link Driver} of a real GPU: CUDA's driver API through JCuda ({@code org.jcuda:jcuda}),
 * which needs only {@code libcuda.so.1}, so it runs on CUDA 12 and CUDA 13 drivers alike and
 * never loads the CUDA runtime. Each device is used through its primary context (the one the
 * runtime and PyTorch share), made current per thread by {@link #makeCurrent}.
 *
 * <p>Errors come back as {@link CudaException} with the driver's {@code CUresult} name; a module
 * the driver refuses for its PTX version says which driver it needs ({@link PtxDriverRequirement}).
 */
public final class JCudaDriver implements Driver {
    private final int deviceCount;
    private final int driverVersion;
    private final CUcontext[] contexts;
    private final DeviceInfo[] infos;
    /** The ordinal current on each thread, so a repeated {@link #makeCurrent} costs a thread-local read. */
    private final ThreadLocal<int[]> current = ThreadLocal.withInitial(() -> new int[] {-1});

    private JCudaDriver(int deviceCount, int driverVersion) {
        this.deviceCount = deviceCount;
        this.driverVersion = driverVersion;
        this.contexts = new CUcontext[deviceCount];
        this.infos = new DeviceInfo[deviceCount];
    }

    /**
     * Loads JCuda's natives and initialises the driver. Throws the {@link LinkageError} of natives
     * that cannot load (no {@code libcuda.so.1}), or a {@link CudaException} from {@code cuInit}.
     */
    public static JCudaDriver open() {
        check("cuInit", cuInit(0), "");
        int[] count = {0};
        check("cuDeviceGetCount", cuDeviceGetCount(count), "");
        int[] version = {0};
        check("cuDriverGetVersion", cuDriverGetVersion(version), "");
        return new JCudaDriver(count[0], version[0]);
    }

    /** {@code cuDriverGetVersion}: 13000 for a CUDA 13.0 driver. */
    public int driverVersion() { return driverVersion; }

    @Override
    public String describe() {
        return "JCuda " + JCudaVersion.get() + " driver API, NVIDIA driver for CUDA " + driverVersion / 1000 + "."
                + driverVersion % 1000 / 10;
    }

    @Override public int deviceCount() { return deviceCount; }

    @Override
    public synchronized DeviceInfo deviceInfo(int ordinal) {
        checkOrdinal(ordinal);
        if (infos[ordinal] == null) {
            CUdevice device = device(ordinal);
            byte[] name = new byte[256];
            check("cuDeviceGetName", cuDeviceGetName(name, name.length, device), "device " + ordinal);
            long[] total = {0};
            check("cuDeviceTotalMem", cuDeviceTotalMem(total, device), "device " + ordinal);
            infos[ordinal] = new DeviceInfo(cString(name),
                    attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ordinal),
                    attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ordinal), total[0],
                    attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ordinal),
                    attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ordinal),
                    attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ordinal),
                    attribute(device, CU_DEVICE_ATTRIBUTE_WARP_SIZE, ordinal));
        }
        return infos[ordinal];
    }

    @Override
    public void makeCurrent(int ordinal) {
        int[] mine = current.get();
        if (mine[0] == ordinal) return;
        check("cuCtxSetCurrent", cuCtxSetCurrent(primaryContext(ordinal)), "device " + ordinal);
        mine[0] = ordinal;
    }

    private synchronized CUcontext primaryContext(int ordinal) {
        checkOrdinal(ordinal);
        if (contexts[ordinal] == null) {
            CUcontext context = new CUcontext();
            check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(context, device(ordinal)), "device " + ordinal);
            contexts[ordinal] = context;
        }
        return contexts[ordinal];
    }

    // ---- memory --------------------------------------------------------------------------------

    @Override
    public long malloc(long bytes) {
        var allocation = new DeviceHandles.Allocation();
        check("cuMemAlloc", cuMemAlloc(allocation, bytes), bytes + " bytes on device " + current.get()[0]);
        return allocation.address();
    }

    @Override
    public void free(long address) {
        check("cuMemFree", cuMemFree(DeviceHandles.device(address)), "0x" + Long.toHexString(address));
    }

    @Override
    public MemInfo memInfo() {
        long[] free = {0};
        long[] total = {0};
        check("cuMemGetInfo", cuMemGetInfo(free, total), "device " + current.get()[0]);
        return new MemInfo(free[0], total[0]);
    }

    @Override
    public MemorySegment mallocHost(long bytes) {
        var host = new DeviceHandles.Host();
        check("cuMemAllocHost", cuMemAllocHost(host, bytes), bytes + " bytes");
        return MemorySegment.ofAddress(host.address()).reinterpret(bytes);
    }

    @Override
    public void freeHost(MemorySegment pinned) {
        check("cuMemFreeHost", cuMemFreeHost(new DeviceHandles.Host(pinned.address())), pinned.byteSize() + " bytes");
    }

    // ---- streams, copies, events ---------------------------------------------------------------

    @Override
    public Stream createStream() {
        var stream = new DeviceHandles.Stream(current.get()[0]);
        // Non-blocking: the legacy default stream (other libraries' synchronous calls) must not serialise with ours.
        check("cuStreamCreate", cuStreamCreate(stream, CU_STREAM_NON_BLOCKING), "");
        return stream;
    }

    @Override
    public void destroyStream(Stream stream) {
        check("cuStreamDestroy", cuStreamDestroy(stream(stream)), "");
    }

    @Override
    public void synchronize(Stream stream) {
        check("cuStreamSynchronize", cuStreamSynchronize(stream(stream)), "");
    }

    @Override
    public void copyToDevice(long dst, MemorySegment source, Stream stream) {
        long bytes = source.byteSize();
        if (source.isNative()) {
            check("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync(DeviceHandles.device(dst), new DeviceHandles.Host(source.address()), bytes,
                    stream(stream)), bytes + " bytes");
            return;
        }
        // A heap segment may move with the GC: copy it out, and wait, since the copy must be done before the array is freed.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(bytes, 16).copyFrom(source);
            check("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync(DeviceHandles.device(dst), new DeviceHandles.Host(staging.address()), bytes,
                    stream(stream)), bytes + " bytes from the heap");
            synchronize(stream);
        }
    }

    @Override
    public void copyToHost(MemorySegment target, long src, Stream stream) {
        long bytes = target.byteSize();
        if (target.isNative()) {
            check("cuMemcpyDtoHAsync", cuMemcpyDtoHAsync(new DeviceHandles.Host(target.address()), DeviceHandles.device(src), bytes,
                    stream(stream)), bytes + " bytes");
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(bytes, 16);
            check("cuMemcpyDtoHAsync", cuMemcpyDtoHAsync(new DeviceHandles.Host(staging.address()), DeviceHandles.device(src), bytes,
                    stream(stream)), bytes + " bytes to the heap");
            synchronize(stream);
            target.copyFrom(staging);
        }
    }

    @Override
    public void copyDeviceToDevice(long dst, long src, long bytes, Stream stream) {
        check("cuMemcpyDtoDAsync", cuMemcpyDtoDAsync(DeviceHandles.device(dst), DeviceHandles.device(src), bytes, stream(stream)),
                bytes + " bytes");
    }

    @Override
    public void zero(long dst, long bytes, Stream stream) {
        check("cuMemsetD8Async", cuMemsetD8Async(DeviceHandles.device(dst), (byte) 0, bytes, stream(stream)), bytes + " bytes");
    }

    @Override
    public Event record(Stream stream) {
        CUevent event = new CUevent();
        check("cuEventCreate", cuEventCreate(event, CU_EVENT_DEFAULT), "");
        check("cuEventRecord", cuEventRecord(event, stream(stream)), "");
        return new DeviceHandles.Event(event);
    }

    @Override
    public float elapsedMillis(Event start, Event end) {
        CUevent last = event(end);
        check("cuEventSynchronize", cuEventSynchronize(last), "");
        float[] millis = {0};
        check("cuEventElapsedTime", cuEventElapsedTime(millis, event(start), last), "");
        return millis[0];
    }

    @Override
    public void destroyEvent(Event event) {
        check("cuEventDestroy", cuEventDestroy(event(event)), "");
    }

    @Override
    public void waitEvent(Stream stream, Event event) {
        check("cuStreamWaitEvent", cuStreamWaitEvent(stream(stream), event(event), 0), "");
    }

    @Override
    public boolean isComplete(Event event) {
        int result = cuEventQuery(event(event));
        if (result == CUresult.CUDA_ERROR_NOT_READY) return false;
        check("cuEventQuery", result, "");
        return true;
    }

    // ---- modules and launches ------------------------------------------------------------------

    @Override
    public Module load(ModuleImage image) {
        CUmodule module = new CUmodule();
        boolean fatbin = image.fatbin() != null && image.fatbin().length > 0;
        int result = fatbin ? cuModuleLoadData(module, image.fatbin()) : cuModuleLoadData(module, image.ptx());
        if (result == CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION || result == CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU
                || result == CUresult.CUDA_ERROR_INVALID_PTX) {
            int ordinal = Math.max(current.get()[0], 0);
            throw new CudaException("cuModuleLoadData", CUresult.stringFor(result),
                    PtxDriverRequirement.explain(image.name(), image.ptx(), driverVersion, ordinal, deviceInfo(ordinal)));
        }
        check("cuModuleLoadData", result, "module '" + image.name() + "' (" + (fatbin ? "fatbin" : "PTX") + ")");
        return new DeviceHandles.Module(module, image.name());
    }

    @Override
    public Function function(Module module, String name) {
        var loaded = (DeviceHandles.Module) module;
        CUfunction function = new CUfunction();
        check("cuModuleGetFunction", cuModuleGetFunction(function, loaded.module(), name),
                "kernel '" + name + "' in module '" + loaded.name() + "'");
        return new DeviceHandles.Function(function, name);
    }

    @Override
    public void launch(Function function, Dim3 grid, Dim3 block, int sharedBytes, Stream stream, KernelArgs args) {
        var kernel = (DeviceHandles.Function) function;
        if (sharedBytes > kernel.maxDynamicShared) {
            // Beyond 48 KiB a kernel must opt in to the device's larger shared memory.
            check("cuFuncSetAttribute", cuFuncSetAttribute(kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    sharedBytes), "kernel '" + kernel.name + "', " + sharedBytes + " bytes of dynamic shared memory");
            kernel.maxDynamicShared = sharedBytes;
        }
        check("cuLaunchKernel", cuLaunchKernel(kernel.function, grid.x(), grid.y(), grid.z(), block.x(), block.y(), block.z(),
                sharedBytes, stream(stream), KernelParams.of(args), (Pointer) null),
                "kernel '" + kernel.name + "', grid " + grid + ", block " + block + ", " + sharedBytes + " bytes shared");
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** The raw {@code CUstream} of a stream this driver made, for cuBLAS's {@code cublasSetStream}. */
    public static long streamAddress(Stream stream) { return stream(stream).address(); }

    /** JCuda's stream object of a stream this driver made, for JCublas. */
    public static jcuda.driver.CUstream streamHandle(Stream stream) { return stream(stream); }

    private static DeviceHandles.Stream stream(Stream stream) {
        if (!(stream instanceof DeviceHandles.Stream s)) {
            throw new IllegalArgumentException("JCudaDriver: " + stream + " is not a stream of this driver");
        }
        return s;
    }

    private static CUevent event(Event event) {
        if (!(event instanceof DeviceHandles.Event e)) {
            throw new IllegalArgumentException("JCudaDriver: " + event + " is not an event of this driver");
        }
        return e.event();
    }

    private void checkOrdinal(int ordinal) {
        if (ordinal < 0 || ordinal >= deviceCount) {
            throw new IllegalArgumentException("JCudaDriver: device ordinal " + ordinal + " out of range, " + deviceCount + " devices");
        }
    }

    private static CUdevice device(int ordinal) {
        CUdevice device = new CUdevice();
        check("cuDeviceGet", cuDeviceGet(device, ordinal), "device " + ordinal);
        return device;
    }

    private static int attribute(CUdevice device, int attribute, int ordinal) {
        int[] value = {0};
        check("cuDeviceGetAttribute", cuDeviceGetAttribute(value, attribute, device), "attribute " + attribute + " of device " + ordinal);
        return value[0];
    }

    private static String cString(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) n++;
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    static void check(String call, int result, String detail) {
        if (result != CUresult.CUDA_SUCCESS) throw new CudaException(call, CUresult.stringFor(result), detail);
    }
}
