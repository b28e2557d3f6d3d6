package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector-API constants every kernel of this package uses, in a class of their own
 * (Lucene's pattern): without the {@code jdk.incubator.vector} module only this class and
 * the kernels that touch it fail to initialise, and {@link KernelSupport} falls back to the
 * reference kernels instead.
 */
final class VectorConstants {
    private VectorConstants() {}

    /** The widest float species the CPU runs natively (512-bit with AVX-512). */
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    /** Doubles of the same width, for sums that accumulate in double. */
    static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;

    /** Floats at half the width: as many lanes as {@link #D}, so one load widens to one double vector. */
    static final VectorSpecies<Float> HALF = VectorSpecies.of(float.class, VectorShape.forBitSize(D.vectorBitSize() / 2));

    /** Lanes per double vector (and per {@link #HALF} float vector). */
    static final int DL = D.length();

    /** Lanes per vector; {@link KernelSupport} reads it reflectively to prove the class loads. */
    static final int L = S.length();
}
