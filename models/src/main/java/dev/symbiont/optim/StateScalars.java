package dev.symbiont.optim;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;

/**
 * Scalars stored in state dicts as 0-dim int64 tensors. Counts are stored as themselves;
 * doubles (learning rates, weight decay) as their IEEE-754 bits, because Symbiont has no
 * float64 tensor and a float32 round trip would change the lr a resumed run steps with, so
 * its parameters would no longer match an uninterrupted run bit for bit.
 */
public final class StateScalars {
    /** The dtype and shape of every value written here. */
    public static final StateDictException.Expected SPEC = new StateDictException.Expected(DType.INT64, new int[0]);

    private StateScalars() {}

    public static Tensor ofLong(long value) { return Tensor.fromArray(new long[] {value}, new int[0]); }

    public static long toLong(Tensor t) { return t.toLongArray()[0]; }

    /** The double's raw bits, so {@link #toDouble} gives back exactly the same value. */
    public static Tensor ofDouble(double value) { return ofLong(Double.doubleToRawLongBits(value)); }

    public static double toDouble(Tensor t) { return Double.longBitsToDouble(toLong(t)); }
}
