package dev.symbiont.cpu.gemm;

import java.util.Optional;

/**
 * Can this JVM run {@link VectorGemm}? The {@code jdk.incubator.vector} module must be in the
 * boot layer (the JVM was started with {@code --add-modules jdk.incubator.vector}) and the
 * kernel class must initialise. Answers with a reason rather than an exception, so the
 * caller can log it and fall back to EJML.
 */
public final class VectorSupport {

    /** The incubator module the kernels are written against. */
    public static final String MODULE = "jdk.incubator.vector";
    static final String KERNEL_CLASS = "dev.symbiont.cpu.gemm.VectorGemmKernels";

    private VectorSupport() {}

    /** Whether the vector path can run, and if not, why. */
    public record Status(boolean available, String reason) {}

    private static final class Cached {
        static final Status STATUS = check(ModuleLayer.boot(), MODULE, KERNEL_CLASS);
    }

    /** The status for this JVM (computed once). */
    public static Status check() {
        return Cached.STATUS;
    }

    /**
     * The status for an arbitrary module layer, module and probe class (one holding an int
     * field {@code L}, the lanes per float vector); split out so tests can ask about a module
     * that is not there, and shared with the elementwise kernels' check.
     */
    public static Status check(ModuleLayer layer, String module, String kernelClass) {
        Optional<Module> found = layer.findModule(module);
        if (found.isEmpty()) {
            return new Status(false, "module " + module + " is not in the boot layer;"
                    + " start the JVM with --add-modules " + module);
        }
        if (!VectorSupport.class.getModule().canRead(found.get())) {
            return new Status(false, "module " + VectorSupport.class.getModule() + " cannot read " + module);
        }
        String vmInfo = System.getProperty("java.vm.info", "");
        if (vmInfo.contains("interpreted mode")) {
            return new Status(false, "the JIT is disabled (" + vmInfo + "); the Vector API would be far slower than EJML");
        }
        try {
            Class<?> k = Class.forName(kernelClass, true, VectorSupport.class.getClassLoader());
            var lanes = k.getDeclaredField("L");
            lanes.setAccessible(true);
            int bits = lanes.getInt(null) * Float.SIZE;
            if (bits < 128) {
                return new Status(false, "only " + bits + "-bit float vectors on this CPU");
            }
            return new Status(true, module + " present; " + bits + "-bit float vectors");
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return new Status(false, "kernel class " + kernelClass + " failed to load: " + e);
        }
    }
}
