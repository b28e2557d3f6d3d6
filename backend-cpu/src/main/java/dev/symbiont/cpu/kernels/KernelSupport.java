package dev.symbiont.cpu.kernels;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Optional;

/**
 * Can this JVM run the Vector-API kernels of this package? Decided once and logged once:
 * the {@code jdk.incubator.vector} module must be in the boot layer and readable, the JIT on,
 * {@link VectorConstants} must initialise, and the property {@value #PROPERTY} must not be
 * {@code false}. Otherwise the CPU backend keeps the reference (scalar) kernels.
 *
 * <p>This class touches no Vector-API type itself, so it always loads.
 */
public final class KernelSupport {
    private KernelSupport() {}

    /** System property that turns the Vector-API kernels off ({@code false}), e.g. to compare against the scalar twin. */
    public static final String PROPERTY = "symbiont.cpu.vector";
    static final String MODULE = "jdk.incubator.vector";
    static final String CONSTANTS_CLASS = "dev.symbiont.cpu.kernels.VectorConstants";

    private static final Logger LOG = System.getLogger("dev.symbiont.cpu");

    /** Whether the vector kernels can run, and the sentence that says why (or why not). */
    public record Status(boolean available, String reason) {}

    private static final class Cached {
        static final Status STATUS = log(check(System.getProperty(PROPERTY), ModuleLayer.boot(), MODULE, CONSTANTS_CLASS));

        private static Status log(Status s) {
            if (s.available()) {
                LOG.log(Level.DEBUG, "Symbiont CPU kernels: Vector API ({0})", s.reason());
            } else {
                LOG.log(Level.INFO, "Symbiont CPU kernels: using scalar reference kernels ({0})", s.reason());
            }
            return s;
        }
    }

    /** The status for this JVM, computed and logged once. */
    public static Status status() {
        return Cached.STATUS;
    }

    /** The rule itself, split out so tests can ask about a missing module or a disabling property. */
    static Status check(String property, ModuleLayer layer, String module, String constantsClass) {
        if (property != null && property.strip().equalsIgnoreCase("false")) {
            return new Status(false, "turned off by -D" + PROPERTY + "=" + property);
        }
        Optional<Module> found = layer.findModule(module);
        if (found.isEmpty()) {
            return new Status(false, "module " + module + " is not in the boot layer;"
                    + " start the JVM with --add-modules " + module);
        }
        if (!KernelSupport.class.getModule().canRead(found.get())) {
            return new Status(false, KernelSupport.class.getModule() + " cannot read " + module);
        }
        String vmInfo = System.getProperty("java.vm.info", "");
        if (vmInfo.contains("interpreted mode")) {
            return new Status(false, "the JIT is disabled (" + vmInfo + "); Vector API code would crawl");
        }
        try {
            Class<?> c = Class.forName(constantsClass, true, KernelSupport.class.getClassLoader());
            var lanes = c.getDeclaredField("L");
            lanes.setAccessible(true);
            return new Status(true, module + " present; " + lanes.getInt(null) * Float.SIZE + "-bit float vectors");
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return new Status(false, "class " + constantsClass + " failed to load: " + e);
        }
    }
}
