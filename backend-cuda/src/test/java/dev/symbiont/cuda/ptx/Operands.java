package dev.symbiont.cuda.ptx;

/** Operand readers: registers, immediates and special registers, as raw 64-bit values. */
final class Operands {
    /** A source operand. */
    interface Src {
        long get(Block b, Machine.Thread t, Machine.Frame f);
    }

    private Operands() {}

    /** A source operand for an instruction of {@code type} (immediates are read in that type). */
    static Src source(Decoded d, String text, String type) {
        String s = text.strip();
        if (d.isRegister(s)) {
            int r = d.register(s);
            return (b, t, f) -> f.r[r];
        }
        if (s.startsWith("%")) return special(s);
        if (d.isSymbol(s)) {
            Decoded.Symbol sym = d.symbol(s);
            long offset = sym.offset();
            if (sym.space().equals("local")) return (b, t, f) -> f.localBase + offset;
            return (b, t, f) -> offset;
        }
        long v = immediate(s, type);
        return (b, t, f) -> v;
    }

    /** An immediate's bits in {@code type}: hex float forms 0f/0d, integers, decimal floats for float types. */
    static long immediate(String s, String type) {
        if (s.startsWith("0f") || s.startsWith("0F")) {
            long bits = Long.parseUnsignedLong(s.substring(2), 16);
            if (".f64".equals(type)) return Double.doubleToRawLongBits(Float.intBitsToFloat((int) bits));
            return bits;
        }
        if (s.startsWith("0d") || s.startsWith("0D")) {
            long bits = Long.parseUnsignedLong(s.substring(2), 16);
            if (".f32".equals(type)) return Float.floatToRawIntBits((float) Double.longBitsToDouble(bits)) & 0xFFFFFFFFL;
            return bits;
        }
        if (type != null && PtxTypes.isFloat(type) && (s.contains(".") || s.contains("e"))) {
            double v = Double.parseDouble(s);
            return ".f64".equals(type) ? Double.doubleToRawLongBits(v) : Float.floatToRawIntBits((float) v) & 0xFFFFFFFFL;
        }
        long v = parseInteger(s, 0);
        if (type != null && PtxTypes.isFloat(type) && !s.startsWith("0x")) {
            // an integer literal for a float operand means that number
            return ".f64".equals(type) ? Double.doubleToRawLongBits(v) : Float.floatToRawIntBits((float) v) & 0xFFFFFFFFL;
        }
        return v;
    }

    /** A decimal, hex or octal integer literal, with an optional U suffix. */
    static long parseInteger(String s, int line) {
        String t = s.strip();
        if (t.endsWith("U") || t.endsWith("u")) t = t.substring(0, t.length() - 1);
        boolean negative = t.startsWith("-");
        if (negative) t = t.substring(1);
        long v;
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) v = Long.parseUnsignedLong(t.substring(2), 16);
            else if (t.length() > 1 && t.startsWith("0")) v = Long.parseUnsignedLong(t.substring(1), 8);
            else v = Long.parseUnsignedLong(t);
        } catch (NumberFormatException e) {
            throw new PtxException("line " + line + ": cannot read operand '" + s + "'");
        }
        return negative ? -v : v;
    }

    private static Src special(String s) {
        return switch (s) {
            case "%tid.x" -> (b, t, f) -> t.x;
            case "%tid.y" -> (b, t, f) -> t.y;
            case "%tid.z" -> (b, t, f) -> t.z;
            case "%ntid.x" -> (b, t, f) -> b.blockDim.x();
            case "%ntid.y" -> (b, t, f) -> b.blockDim.y();
            case "%ntid.z" -> (b, t, f) -> b.blockDim.z();
            case "%ctaid.x" -> (b, t, f) -> b.ctaX;
            case "%ctaid.y" -> (b, t, f) -> b.ctaY;
            case "%ctaid.z" -> (b, t, f) -> b.ctaZ;
            case "%nctaid.x" -> (b, t, f) -> b.gridDim.x();
            case "%nctaid.y" -> (b, t, f) -> b.gridDim.y();
            case "%nctaid.z" -> (b, t, f) -> b.gridDim.z();
            case "%laneid" -> (b, t, f) -> t.lane;
            case "%warpid" -> (b, t, f) -> t.warp;
            case "%nwarpid" -> (b, t, f) -> (b.threadCount() + 31) / 32;
            case "%smid" -> (b, t, f) -> 0;
            case "%lanemask_lt" -> (b, t, f) -> (1L << t.lane) - 1;
            case "%lanemask_le" -> (b, t, f) -> ((1L << t.lane) << 1) - 1 & 0xFFFFFFFFL;
            case "%lanemask_eq" -> (b, t, f) -> 1L << t.lane;
            case "%lanemask_gt" -> (b, t, f) -> ~(((1L << t.lane) << 1) - 1) & 0xFFFFFFFFL;
            case "%lanemask_ge" -> (b, t, f) -> ~((1L << t.lane) - 1) & 0xFFFFFFFFL;
            case "%clock", "%clock64" -> (b, t, f) -> b.executed;
            case "%dynamic_smem_size" -> (b, t, f) -> b.dynamicShared;
            default -> throw new PtxException("the interpreter does not implement special register " + s);
        };
    }
}
