package dev.symbiont.core.backend;

/** The distributions {@link Backend#random} draws; {@link Philox} fixes their bits exactly. */
public enum RandomKind {
    /** U[0, 1): the top 24 bits of a Philox word times 2⁻²⁴ (every float32 multiple of 2⁻²⁴). */
    UNIFORM,
    /** N(0, 1): Box–Muller on pairs of Philox words, in double with {@link StrictMath}, rounded to float32. */
    NORMAL
}
