package dev.symbiont.cuda.ptx;

/** PTX fundamental types: sizes and how a register's raw 64 bits read as each. */
final class PtxTypes {
    private PtxTypes() {}

    /** Bytes of {@code .b32}, {@code .f64}, {@code .pred}, ... */
    static int size(String type, int line) {
        return switch (type) {
            case ".b8", ".u8", ".s8" -> 1;
            case ".b16", ".u16", ".s16", ".f16", ".bf16" -> 2;
            case ".b32", ".u32", ".s32", ".f32", ".f16x2", ".bf16x2" -> 4;
            case ".b64", ".u64", ".s64", ".f64" -> 8;
            case ".pred" -> 1;
            default -> throw new PtxException("line " + line + ": unknown type " + type);
        };
    }

    static boolean isType(String s) {
        return switch (s) {
            case ".b8", ".u8", ".s8", ".b16", ".u16", ".s16", ".f16", ".bf16", ".b32", ".u32", ".s32", ".f32",
                 ".b64", ".u64", ".s64", ".f64", ".pred", ".f16x2", ".bf16x2" -> true;
            default -> false;
        };
    }

    static boolean isSigned(String type) { return type.startsWith(".s"); }

    static boolean isFloat(String type) { return type.startsWith(".f") || type.equals(".bf16"); }

    /** Raw bits as a signed or unsigned integer of the type's width, widened to long. */
    /** {@link #asInteger} with the type resolved once, for the decoded op to call per execution. */
    static java.util.function.LongUnaryOperator extender(String type) {
        return switch (type) {
            case ".s8" -> bits -> (byte) bits;
            case ".u8", ".b8" -> bits -> bits & 0xFF;
            case ".s16" -> bits -> (short) bits;
            case ".u16", ".b16" -> bits -> bits & 0xFFFF;
            case ".s32" -> bits -> (int) bits;
            case ".u32", ".b32" -> bits -> bits & 0xFFFFFFFFL;
            default -> bits -> bits;
        };
    }

    static long asInteger(long bits, String type) {
        return switch (type) {
            case ".s8" -> (byte) bits;
            case ".u8", ".b8" -> bits & 0xFF;
            case ".s16" -> (short) bits;
            case ".u16", ".b16" -> bits & 0xFFFF;
            case ".s32" -> (int) bits;
            case ".u32", ".b32" -> bits & 0xFFFFFFFFL;
            default -> bits;
        };
    }

    /** Keeps the type's width of a result (registers hold values zero-extended). */
    static long truncate(long value, int bytes) {
        return switch (bytes) {
            case 1 -> value & 0xFF;
            case 2 -> value & 0xFFFF;
            case 4 -> value & 0xFFFFFFFFL;
            default -> value;
        };
    }
}
