package dev.symbiont.cpu.gemm;

import java.util.Locale;

/** The GEMM implementations, by the name the {@code symbiont.cpu.gemm} property uses. */
public enum GemmPath {
    /** {@link VectorGemm}: Vector API micro-kernel, cache blocking, all cores. */
    VECTOR,
    /** {@link EjmlGemm}: EJML's {@code CommonOps_FDRM.mult}, portable. */
    EJML;

    /** The property spelling: {@code vector} or {@code ejml}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code vector} or {@code ejml} (any case, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the accepted values otherwise
     */
    public static GemmPath parse(String id) {
        String s = id.strip().toLowerCase(Locale.ROOT);
        for (GemmPath p : values()) {
            if (p.id().equals(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown GEMM path '" + id + "'; expected one of: vector, ejml");
    }
}
