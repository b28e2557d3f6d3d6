package dev.symbiont.core.backend;

/** Reductions over a set of dimensions. ARGMAX/ARGMIN give int64 indices over one dimension. */
public enum ReduceOp {
    SUM, MAX, MIN, ARGMAX, ARGMIN;

    public boolean isArg() { return this == ARGMAX || this == ARGMIN; }
}
