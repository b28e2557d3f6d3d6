package dev.symbiont.io;

import dev.symbiont.core.DType;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The safetensors dtype strings ("F32", "BF16", ...) for the dtypes Symbiont can store. Their
 * elements lie on disk as a backend's host segments hold them: little-endian raw bits
 * ({@link dev.symbiont.core.backend.HostSegments#elementLayout}), unaligned when another writer
 * did not pad.
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
}
