package dev.symbiont.core.backend;

/**
 * Elementwise float32 functions of two arguments. Comparisons give masks of 1.0 (true) and
 * 0.0 (false) in float32.
 */
public enum BinaryOp {
    ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM,
    EQ, NE, LT, LE, GT, GE;

    public boolean isComparison() { return ordinal() >= EQ.ordinal(); }
}
