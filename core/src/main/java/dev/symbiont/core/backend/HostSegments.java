package dev.symbiont.core.backend;

import dev.symbiont.core.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The host side of {@link Backend}'s transfers: the byte layout of elements in a host
 * {@link MemorySegment} (little-endian, each dtype's raw bits, no alignment required), the
 * checks every backend makes on such a segment, and the Java arrays the array conveniences
 * view as segments (float[] for float32, int[] for int32, long[] for int64, short[] bits for
 * bfloat16 and float16).
 */
public final class HostSegments {
    /**
     * Whether this JVM stores array elements little-endian, so a {@link MemorySegment#ofArray}
     * view of a host array is the transfer layout as it is. True on x86-64 and AArch64.
     */
    private static final boolean LITTLE_ENDIAN_HOST = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private HostSegments() {}

    /** How one element of {@code dtype} lies in a host segment: little-endian, unaligned (a file may not pad). */
    public static ValueLayout elementLayout(DType dtype) {
        ValueLayout layout = switch (dtype) {
            case FLOAT32 -> ValueLayout.JAVA_FLOAT_UNALIGNED;
            case INT32 -> ValueLayout.JAVA_INT_UNALIGNED;
            case INT64 -> ValueLayout.JAVA_LONG_UNALIGNED;
            case BFLOAT16, FLOAT16 -> ValueLayout.JAVA_SHORT_UNALIGNED; // raw bits
        };
        return layout.withOrder(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The number of {@code dtype} elements {@code source} holds; an error naming {@code op}, the
     * byte size and the element size when the bytes do not divide into whole elements.
     */
    public static long elementCount(String op, DType dtype, MemorySegment source) {
        if (source == null) throw new IllegalArgumentException(op + ": source segment is null");
        long bytes = source.byteSize();
        if (bytes % dtype.byteSize() != 0) {
            throw new IllegalArgumentException(op + ": a segment of " + bytes + " bytes is not a whole number of "
                    + dtype + " elements (" + dtype.byteSize() + " bytes each)");
        }
        return bytes / dtype.byteSize();
    }

    /**
     * Throws, naming {@code op} and the sizes, unless {@code target} is writable and has room for
     * {@code count} elements of {@code dtype}.
     */
    public static void checkRoom(String op, DType dtype, long count, MemorySegment target) {
        if (target == null) throw new IllegalArgumentException(op + ": target segment is null");
        if (target.isReadOnly()) throw new IllegalArgumentException(op + ": target segment is read-only");
        long needed = count * dtype.byteSize();
        if (target.byteSize() < needed) {
            throw new IllegalArgumentException(op + ": " + count + " " + dtype + " elements need " + needed
                    + " bytes, the target segment has " + target.byteSize());
        }
    }

    /**
     * The host array behind {@code segment} when writing {@code dtype} elements into it can go
     * straight to the array: a heap segment over an array of the dtype's Java type, starting on
     * an element boundary, on a little-endian host. Returns the array, its first element index
     * in {@link ArrayView}; null otherwise.
     */
    public static ArrayView arrayView(DType dtype, MemorySegment segment) {
        if (!LITTLE_ENDIAN_HOST || segment.isReadOnly()) return null;
        Object base = segment.heapBase().orElse(null);
        if (base == null || !holds(dtype, base) || segment.address() % dtype.byteSize() != 0) return null;
        return new ArrayView(base, Math.toIntExact(segment.address() / dtype.byteSize()));
    }

    /** A host array and the index of the element a segment over it starts at. */
    public record ArrayView(Object array, int first) {}

    /** A zero-filled array of the dtype's Java type. */
    public static Object newArray(DType dtype, int size) {
        return switch (dtype) {
            case FLOAT32 -> new float[size];
            case INT32 -> new int[size];
            case INT64 -> new long[size];
            case BFLOAT16, FLOAT16 -> new short[size];
        };
    }

    /** True when {@code array} has the Java type that holds {@code dtype}. */
    public static boolean holds(DType dtype, Object array) {
        return switch (dtype) {
            case FLOAT32 -> array instanceof float[];
            case INT32 -> array instanceof int[];
            case INT64 -> array instanceof long[];
            case BFLOAT16, FLOAT16 -> array instanceof short[];
        };
    }

    /**
     * A host array seen as the transfer layout's bytes (no copy); an error naming {@code op}
     * when the array is not of the dtype's Java type. The view is the array's memory, so it is
     * the little-endian layout only on a little-endian host; elsewhere this throws rather than
     * hand a backend byte-swapped values.
     */
    public static MemorySegment ofArray(String op, DType dtype, Object array) {
        if (array == null || !holds(dtype, array)) {
            throw new IllegalArgumentException(op + ": " + dtype + " needs a " + newArray(dtype, 0).getClass().getSimpleName()
                    + ", got " + (array == null ? "null" : array.getClass().getSimpleName()));
        }
        if (!LITTLE_ENDIAN_HOST) {
            throw new UnsupportedOperationException(op + ": host arrays are transferred as little-endian bytes, and this JVM's "
                    + "arrays are " + ByteOrder.nativeOrder() + "; pass a little-endian MemorySegment instead");
        }
        return switch (array) {
            case float[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            default -> throw new AssertionError(array.getClass());
        };
    }
}
