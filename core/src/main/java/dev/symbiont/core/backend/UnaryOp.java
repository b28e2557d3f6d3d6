package dev.symbiont.core.backend;

/** Elementwise float32 functions of one argument. */
public enum UnaryOp {
    NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RELU,
    /** x * Phi(x), with Phi the standard normal CDF. */
    GELU_ERF,
    /** 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
    GELU_TANH,
    SILU, SOFTPLUS, ERF,
    /** -1, 0 or 1 (NaN gives 0, as PyTorch's eager kernel does). */
    SIGN,
    RECIPROCAL, SQUARE;

    private final String opName = name().toLowerCase(java.util.Locale.ROOT);

    /** The op's name in error messages and the profiler, e.g. "gelu_erf". */
    public String opName() { return opName; }
}
