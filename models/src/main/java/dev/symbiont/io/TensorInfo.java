package dev.symbiont.io;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;

import java.util.Arrays;
import java.util.Objects;

/**
 * One header entry: a tensor's name, dtype, shape and its byte range {@code [begin, end)} in
 * the data section (relative to the end of the header, as the format stores it).
 */
public record TensorInfo(String name, DType dtype, int[] shape, long begin, long end) {
    public TensorInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dtype, "dtype");
        shape = shape.clone();
    }

    /** A copy, so the record stays immutable. */
    @Override
    public int[] shape() { return shape.clone(); }

    public int numel() { return Layout.numel(shape); }

    public long byteLength() { return end - begin; }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorInfo t && name.equals(t.name) && dtype == t.dtype && Arrays.equals(shape, t.shape)
                && begin == t.begin && end == t.end;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, dtype, Arrays.hashCode(shape), begin, end);
    }

    @Override
    public String toString() {
        return name + ": " + DTypeCodes.code(dtype) + " " + Arrays.toString(shape) + " at [" + begin + ", " + end + ")";
    }
}
