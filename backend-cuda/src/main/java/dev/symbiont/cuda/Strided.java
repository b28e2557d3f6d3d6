package dev.symbiont.cuda;

import dev.symbiont.core.Layout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A layout as the kernels take it: the by-value struct of {@code src/main/cuda/common.cuh},
 * {@code struct Strided { long long shape[8]; long long stride[8]; long long offset; int rank; int pad; }}
 * (144 bytes, 8-aligned), in elements. Kernels walk it with 64-bit indices. A layout of more than
 * {@value #MAX_RANK} dims is refused naming the op and the shape: the struct is a fixed size so a
 * launch passes it by value, without a device allocation, and PyTorch's own CUDA kernels stop at
 * 25 dims only because their structs are larger.
 */
public final class Strided {
    /** The most dims a kernel walks. */
    public static final int MAX_RANK = 8;
    /** The struct's size and alignment in bytes. */
    public static final int BYTES = 144, ALIGN = 8;

    private Strided() {}

    /**
     * The struct of {@code layout} for {@code op}'s launch. A contiguous layout is marked with rank
     * -1, the kernels' fast path: element i is at {@code offset + i}, no index arithmetic.
     */
    public static byte[] of(String op, Layout layout) {
        if (layout.isContiguous()) return contiguous(layout.offset());
        return of(op, layout.shape(), layout.strides(), layout.offset());
    }

    /** The struct of a contiguous run from {@code offset}. */
    public static byte[] contiguous(long offset) {
        ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.position(2 * MAX_RANK * 8);
        b.putLong(offset);
        b.putInt(-1);
        return b.array();
    }

    /** The struct of a shape walked with {@code strides} from {@code offset}. */
    public static byte[] of(String op, int[] shape, int[] strides, long offset) {
        if (shape.length > MAX_RANK) {
            throw new IllegalArgumentException(op + ": the cuda backend's kernels take at most " + MAX_RANK
                    + " dims, got shape " + Arrays.toString(shape) + " (rank " + shape.length + ")");
        }
        ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int d = 0; d < MAX_RANK; d++) b.putLong(d < shape.length ? shape[d] : 1);
        for (int d = 0; d < MAX_RANK; d++) b.putLong(d < strides.length ? strides[d] : 0);
        b.putLong(offset);
        b.putInt(shape.length);
        b.putInt(0);
        return b.array();
    }
}
