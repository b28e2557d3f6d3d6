package dev.symbiont.cpu.gemm;

import dev.symbiont.core.EnumChoice;

/** The GEMM implementations, by the name the {@code symbiont.cpu.gemm} property uses. */
public enum GemmPath {
    /** {@link VectorGemm}: Vector API micro-kernel, cache blocking, all cores. */
    VECTOR,
    /** {@link EjmlGemm}: EJML's {@code CommonOps_FDRM.mult}, portable. */
    EJML;

    /** The property spelling: {@code vector} or {@code ejml}. */
    public String id() {
        return EnumChoice.id(this);
    }

    /**
     * Parses {@code vector} or {@code ejml} (any case, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the accepted values otherwise
     */
    public static GemmPath parse(String id) {
        return EnumChoice.parse(GemmPath.class, id, "the GEMM path");
    }
}
