package dev.symbiont.core.backend;

/**
 * Elementwise float32 functions of two arguments. Comparisons give masks of 1.0 (true) and
 * 0.0 (false) in float32; {@link Backend#compare} runs them on integer operands, exactly.
 */
public enum BinaryOp {
    ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM,
    EQ, NE, LT, LE, GT, GE;

    private final String opName = name().toLowerCase(java.util.Locale.ROOT);

    /** The op's name in error messages and the profiler, e.g. "gelu_erf". */
    public String opName() { return opName; }

    public boolean isComparison() { return ordinal() >= EQ.ordinal(); }
}
