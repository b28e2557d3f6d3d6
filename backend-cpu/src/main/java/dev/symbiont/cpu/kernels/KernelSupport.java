package dev.symbiont.cpu.kernels;

import dev.symbiont.cpu.gemm.VectorSupport;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Can this JVM run the Vector-API kernels of this package? Decided once and logged once:
 * what {@link VectorSupport} requires of the JVM (module, JIT, a class that initialises, here
 * {@link VectorConstants}), and the property {@value #PROPERTY} must not be {@code false}.
 * Otherwise the CPU backend keeps the reference (scalar) kernels.
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
        VectorSupport.Status s = VectorSupport.check(layer, module, constantsClass);
        return new Status(s.available(), s.reason());
    }
}
