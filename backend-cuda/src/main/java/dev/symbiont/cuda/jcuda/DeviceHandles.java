package dev.symbiont.cuda.jcuda;

import dev.symbiont.cuda.driver.Driver;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * JCuda's handle objects seen as raw addresses. JCuda hides a handle's native value
 * ({@code NativePointerObject.getNativePointer} is protected), but the backend names device
 * memory by {@code long} addresses and hands the stream to cuBLAS through {@code java.lang.foreign},
 * so these subclasses read the value JCuda's natives write into them.
 */
final class DeviceHandles {
    private DeviceHandles() {}

    /** A device pointer at a raw address: JCuda passes {@code nativePointer + byteOffset} to the driver. */
    static CUdeviceptr device(long address) {
        return new CUdeviceptr().withByteOffset(address);
    }

    /** What {@code cuMemAlloc} fills in; {@link #address} reads it back. */
    static final class Allocation extends CUdeviceptr {
        long address() { return getNativePointer() + getByteOffset(); }
    }

    /** Host memory at a raw address (a pinned or native {@code MemorySegment}); also what {@code cuMemAllocHost} fills in. */
    static final class Host extends Pointer {
        Host() {}

        Host(long address) { super(address); }

        long address() { return getNativePointer() + getByteOffset(); }
    }

    /** A stream whose {@code CUstream} value cuBLAS can be given. */
    static final class Stream extends CUstream implements Driver.Stream {
        final int ordinal;

        Stream(int ordinal) { this.ordinal = ordinal; }

        /** The raw {@code CUstream} (a {@code cudaStream_t} to cuBLAS). */
        long address() { return getNativePointer(); }
    }

    record Module(CUmodule module, String name) implements Driver.Module {}

    /** A kernel and the most dynamic shared memory it has been allowed so far (48 KiB without opting in). */
    static final class Function implements Driver.Function {
        final CUfunction function;
        final String name;
        int maxDynamicShared = 48 * 1024;

        Function(CUfunction function, String name) {
            this.function = function;
            this.name = name;
        }
    }

    record Event(CUevent event) implements Driver.Event {}
}
