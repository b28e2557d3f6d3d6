package dev.symbiont.data.vision;

import java.util.Arrays;
import java.util.Objects;

/**
 * The content of an unsigned-byte IDX file: its dimensions and its elements in row-major order,
 * as stored (bytes 0..255; read one with {@code data[i] & 0xFF}). The data array is shared, not
 * copied: a 47 MB image file is held once.
 *
 * @param dims (ndims) the sizes, outermost first: (count) for labels, (count, rows, cols) for images
 * @param data the elements; its length is the product of {@code dims}
 */
public record IdxArray(int[] dims, byte[] data) {
    public IdxArray {
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(data, "data");
        if (dims.length == 0 || dims.length > IdxReader.MAX_DIMS) {
            throw new IllegalArgumentException("IdxArray: 1 to " + IdxReader.MAX_DIMS + " dimensions, got " + dims.length);
        }
        long n = 1;
        for (int d : dims) {
            if (d < 0) throw new IllegalArgumentException("IdxArray: negative dimension in " + Arrays.toString(dims));
            n *= d; // below 2^31 before, times an int: cannot overflow a long
            if (n > Integer.MAX_VALUE) throw new IllegalArgumentException("IdxArray: " + Arrays.toString(dims) + " is too large");
        }
        if (n != data.length) {
            throw new IllegalArgumentException("IdxArray: " + Arrays.toString(dims) + " holds " + n + " elements, data has " + data.length);
        }
        dims = dims.clone();
    }

    /** The dimensions (a copy). */
    @Override
    public int[] dims() { return dims.clone(); }

    /** The number of dimensions. */
    public int ndims() { return dims.length; }

    /** The size of dimension {@code i}. */
    public int dim(int i) { return dims[i]; }

    // Records compare arrays by identity; an IDX array is a value.
    @Override
    public boolean equals(Object o) {
        return o instanceof IdxArray a && Arrays.equals(dims, a.dims) && Arrays.equals(data, a.data);
    }

    @Override
    public int hashCode() { return 31 * Arrays.hashCode(dims) + Arrays.hashCode(data); }

    @Override
    public String toString() { return "IdxArray" + Arrays.toString(dims); }
}
