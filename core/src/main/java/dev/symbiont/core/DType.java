package dev.symbiont.core;

/**
 * Element types. float32 is the compute type; int32/int64 carry indices and token ids;
 * bfloat16 and float16 are storage types (convert with {@link Tensor#to(DType)}).
 */
public enum DType {
    FLOAT32("float32", 4, true),
    INT32("int32", 4, false),
    INT64("int64", 8, false),
    BFLOAT16("bfloat16", 2, true),
    FLOAT16("float16", 2, true);

    private final String displayName;
    private final int byteSize;
    private final boolean floating;

    DType(String displayName, int byteSize, boolean floating) {
        this.displayName = displayName;
        this.byteSize = byteSize;
        this.floating = floating;
    }

    /** Bytes per element. */
    public int byteSize() { return byteSize; }

    /** True for float32, bfloat16 and float16. */
    public boolean isFloating() { return floating; }

    /** True for int32 and int64. */
    public boolean isInteger() { return !floating; }

    /** True for the 16-bit storage types, which hold values but are not computed on. */
    public boolean isHalf() { return this == BFLOAT16 || this == FLOAT16; }

    /**
     * The smallest dtype both operands convert to without leaving their category, as
     * {@code torch.promote_types}: int32 with int64 gives int64; an integer with a floating type
     * gives the floating type; bfloat16 with float16 gives float32; float32 wins over the halves.
     */
    public static DType promoteTypes(DType a, DType b) {
        if (a == b) return a;
        if (a.isInteger() && b.isInteger()) return INT64;
        if (a.isInteger()) return b;
        if (b.isInteger()) return a;
        return FLOAT32; // two different floating types: float32 holds both halves exactly
    }

    @Override
    public String toString() { return displayName; }
}
