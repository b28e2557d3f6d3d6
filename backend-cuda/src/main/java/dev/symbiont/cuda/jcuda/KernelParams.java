package dev.symbiont.cuda.jcuda;

import dev.symbiont.cuda.driver.KernelArgs;
import jcuda.NativePointerObject;
import jcuda.Pointer;

import java.util.List;

/**
 * A launch's {@code void** kernelParams} for {@code cuLaunchKernel}: one host pointer per
 * argument to its value, which the driver copies into the kernel's parameter space with the
 * kernel's own layout (so a struct's alignment is the kernel's business, not ours).
 */
final class KernelParams {
    private KernelParams() {}

    static Pointer of(KernelArgs args) {
        List<KernelArgs.Arg> list = args.args();
        NativePointerObject[] values = new NativePointerObject[list.size()];
        for (int i = 0; i < values.length; i++) values[i] = value(list.get(i));
        return Pointer.to(values);
    }

    private static Pointer value(KernelArgs.Arg arg) {
        return switch (arg.kind()) {
            case I32, F32 -> Pointer.to(new int[] {(int) arg.bits()});
            case POINTER, I64, F64 -> Pointer.to(new long[] {arg.bits()});
            case STRUCT -> Pointer.to(arg.bytes());
        };
    }
}
