package dev.symbiont.cpu.gemm;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Picks the {@link Gemm} behind {@link Gemm#fastest()}: once per JVM, logged once.
 * The rule itself ({@link #choose}) is a pure function so tests can drive it.
 */
final class GemmSelection {

    /** System property that forces a path: {@code vector} or {@code ejml}. */
    static final String PROPERTY = "symbiont.cpu.gemm";

    private static final Logger LOG = System.getLogger("dev.symbiont.cpu.gemm");

    private GemmSelection() {}

    /** The outcome of selection: the path and the sentence that explains it. */
    record Choice(GemmPath path, String reason) {}

    private static final class Holder {
        static final Gemm FASTEST = select();

        private static Gemm select() {
            Choice choice = current();
            LOG.log(level(choice), message(choice));
            return choice.path() == GemmPath.VECTOR ? VectorGemm.create() : new EjmlGemm();
        }
    }

    /**
     * The one log line of the selection: WARNING when the JVM left the fast path out (the
     * EJML path is ≈ 50× slower and the fix is a JVM flag), DEBUG (quiet by default) when it runs or was chosen.
     */
    static Level level(Choice choice) {
        return choice.path() == GemmPath.EJML && !choice.reason().startsWith("forced") ? Level.WARNING : Level.DEBUG;
    }

    static String message(Choice choice) {
        if (level(choice) == Level.WARNING) {
            return "Symbiont CPU GEMM: using the EJML path, about 50x slower than the Vector API (" + choice.reason()
                    + "); start the JVM with --add-modules " + VectorSupport.MODULE;
        }
        return "Symbiont CPU GEMM: using " + choice.path().id() + " path (" + choice.reason() + ")";
    }

    static Gemm fastest() {
        return Holder.FASTEST;
    }

    /** The choice the property and this JVM make right now (uncached, not logged). */
    static Choice current() {
        return choose(System.getProperty(PROPERTY), VectorSupport.check());
    }

    /**
     * @param forced the value of {@value #PROPERTY}, or null when unset
     * @param vector whether the vector path can run here
     * @throws IllegalStateException when {@code forced} names the vector path but it cannot
     *         run, or names no path at all
     */
    static Choice choose(String forced, VectorSupport.Status vector) {
        if (forced != null && !forced.isBlank()) {
            GemmPath path;
            try {
                path = GemmPath.parse(forced);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("-D" + PROPERTY + "=" + forced + ": " + e.getMessage(), e);
            }
            if (path == GemmPath.VECTOR && !vector.available()) {
                throw new IllegalStateException("-D" + PROPERTY + "=vector forces the vector path, but it cannot run: "
                        + vector.reason());
            }
            return new Choice(path, "forced by -D" + PROPERTY + "=" + forced);
        }
        if (vector.available()) {
            return new Choice(GemmPath.VECTOR, vector.reason());
        }
        return new Choice(GemmPath.EJML, "vector path unavailable: " + vector.reason());
    }
}
