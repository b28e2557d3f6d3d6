package dev.symbiont.io;

import dev.symbiont.core.DType;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The safetensors dtype strings ("F32", "BF16", ...) for the dtypes Symbiont can store, and how
 * their elements look on disk: little-endian, and unaligned because another writer may not pad.
 */
final class DTypeCodes {
    private static final Map<DType, String> CODES = new EnumMap<>(DType.class);
    private static final Map<String, DType> DTYPES = new LinkedHashMap<>();

    static {
        add(DType.FLOAT32, "F32");
        add(DType.FLOAT16, "F16");
        add(DType.BFLOAT16, "BF16");
        add(DType.INT32, "I32");
        add(DType.INT64, "I64");
    }

    private DTypeCodes() {}

    private static void add(DType dtype, String code) {
        CODES.put(dtype, code);
        DTYPES.put(code, dtype);
    }

    /** The code for a dtype, or null when the format has none Symbiont writes. */
    static String code(DType dtype) {
        return CODES.get(dtype);
    }

    /** The dtype for a code, or null when Symbiont cannot hold it (F64, U8, F8_E4M3, ...). */
    static DType dtype(String code) {
        return DTYPES.get(code);
    }

    /** The codes Symbiont reads, for error messages. */
    static String supported() {
        return String.join(", ", DTYPES.keySet());
    }

    /** The on-disk element layout, matching the backend's host array for the dtype. */
    static ValueLayout layout(DType dtype) {
        ValueLayout layout = switch (dtype) {
            case FLOAT32 -> ValueLayout.JAVA_FLOAT_UNALIGNED;
            case INT32 -> ValueLayout.JAVA_INT_UNALIGNED;
            case INT64 -> ValueLayout.JAVA_LONG_UNALIGNED;
            case BFLOAT16, FLOAT16 -> ValueLayout.JAVA_SHORT_UNALIGNED; // raw bits
            default -> throw new IllegalArgumentException("no safetensors layout for dtype " + dtype);
        };
        return layout.withOrder(ByteOrder.LITTLE_ENDIAN);
    }

    /** A host array of the type {@code Backend.upload} takes for the dtype. */
    static Object newArray(DType dtype, int length) {
        return switch (dtype) {
            case FLOAT32 -> new float[length];
            case INT32 -> new int[length];
            case INT64 -> new long[length];
            case BFLOAT16, FLOAT16 -> new short[length];
            default -> throw new IllegalArgumentException("no host array for dtype " + dtype);
        };
    }
}
