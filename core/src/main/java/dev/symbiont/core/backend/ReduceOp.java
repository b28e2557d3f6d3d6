package dev.symbiont.core.backend;

/** Reductions over a set of dimensions. ARGMAX/ARGMIN give int64 indices over one dimension. */
public enum ReduceOp {
    SUM, MAX, MIN, ARGMAX, ARGMIN;

    private final String opName = name().toLowerCase(java.util.Locale.ROOT);

    /** The op's name in error messages and the profiler, e.g. "gelu_erf". */
    public String opName() { return opName; }

    public boolean isArg() { return this == ARGMAX || this == ARGMIN; }
}
