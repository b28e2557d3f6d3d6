package dev.symbiont.cuda.ptx;

/**
 * cvt between every integer and floating type with its rounding modes, mov (including packing
 * and unpacking vectors of registers), and cvta between generic and state-space addresses.
 */
final class Convert {
    private Convert() {}

    static Decoded.Op decode(Decoded d, Insn in) {
        return switch (in.base()) {
            case "mov" -> move(d, in);
            case "cvta" -> cvta(d, in);
            default -> convert(d, in);
        };
    }

    private static Decoded.Op move(Decoded d, Insn in) {
        in.only();
        String type = in.type();
        String to = in.operand(0), from = in.operand(1);
        int bytes = PtxTypes.size(type, 0);
        if (to.startsWith("{")) {                              // unpack: mov.b64 {%r1, %r2}, %rd1
            String[] parts = to.substring(1, to.length() - 1).split(",");
            int[] dst = new int[parts.length];
            for (int i = 0; i < parts.length; i++) dst[i] = parts[i].strip().equals("_") ? -1 : d.register(parts[i]);
            int width = bytes * 8 / parts.length;
            Operands.Src src = Operands.source(d, from, type);
            long mask = width == 64 ? -1 : (1L << width) - 1;
            return (b, t, f) -> {
                long v = src.get(b, t, f);
                for (int i = 0; i < dst.length; i++) if (dst[i] >= 0) f.r[dst[i]] = v >>> (i * width) & mask;
            };
        }
        int dst = d.register(to);
        if (from.startsWith("{")) {                            // pack: mov.b64 %rd1, {%r1, %r2}
            String[] parts = from.substring(1, from.length() - 1).split(",");
            Operands.Src[] src = new Operands.Src[parts.length];
            for (int i = 0; i < parts.length; i++) src[i] = Operands.source(d, parts[i], null);
            int width = bytes * 8 / parts.length;
            long mask = width == 64 ? -1 : (1L << width) - 1;
            return (b, t, f) -> {
                long v = 0;
                for (int i = 0; i < src.length; i++) v |= (src[i].get(b, t, f) & mask) << (i * width);
                f.r[dst] = v;
            };
        }
        Operands.Src src = Operands.source(d, from, type);
        return (b, t, f) -> f.r[dst] = PtxTypes.truncate(src.get(b, t, f), bytes);
    }

    /** cvta.space (state-space address → generic) and cvta.to.space (generic → state space). */
    private static Decoded.Op cvta(Decoded d, Insn in) {
        boolean toSpace = in.has("to");
        String space = in.has("global") ? "global" : in.has("shared") ? "shared" : in.has("local") ? "local"
                : in.has("const") ? "const" : null;
        if (space == null) throw new PtxException("the interpreter does not implement " + String.join(".", in.mods()) + " of cvta");
        int dst = d.register(in.operand(0));
        Operands.Src src = Operands.source(d, in.operand(1), ".u64");
        long window = space.equals("shared") ? Block.SHARED_WINDOW : space.equals("local") ? Block.LOCAL_WINDOW : 0;
        if (toSpace) return (b, t, f) -> f.r[dst] = src.get(b, t, f) - window;
        return (b, t, f) -> f.r[dst] = src.get(b, t, f) + window;
    }

    private static Decoded.Op convert(Decoded d, Insn in) {
        var types = in.types();
        if (types.size() != 2) throw new PtxException("cvt needs a destination and a source type");
        String to = types.get(0), from = types.get(1);
        String mode = null;
        boolean ftz = false, sat = false;
        for (String m : in.mods()) {
            if (PtxTypes.isType("." + m)) continue;
            switch (m) {
                case "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi" -> mode = m;
                case "ftz" -> ftz = true;
                case "sat" -> sat = true;
                default -> throw new PtxException("the interpreter does not implement modifier ." + m + " of cvt");
            }
        }
        int dst = Instructions.dest(d, in, 0);
        if (to.equals(".bf16x2") || to.equals(".f16x2")) return pair(d, in, to, from, mode, ftz, sat);
        Operands.Src src = Operands.source(d, in.operand(1), from);
        Conversion c = conversion(from, to, mode, ftz, sat);
        return (b, t, f) -> f.r[dst] = c.apply(src.get(b, t, f));
    }

    /**
     * cvt.rn.{bf16x2,f16x2}.f32 d, a, b: both floats rounded to nearest even and packed, a in the
     * upper half of d and b in the lower (the PTX ISA's order).
     */
    private static Decoded.Op pair(Decoded d, Insn in, String to, String from, String mode, boolean ftz, boolean sat) {
        if (!from.equals(".f32") || !"rn".equals(mode) || ftz || sat) {
            throw new PtxException("the interpreter does not implement cvt." + String.join(".", in.mods()) + ": only cvt.rn" + to + ".f32");
        }
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), from), b = Operands.source(d, in.operand(2), from);
        Conversion c = conversion(from, to.substring(0, to.length() - 2), mode, false, false);
        return (blk, t, f) -> f.r[dst] = c.apply(b.get(blk, t, f)) | c.apply(a.get(blk, t, f)) << 16;
    }

    @FunctionalInterface
    interface Conversion { long apply(long bits); }

    static Conversion conversion(String from, String to, String mode, boolean ftz, boolean sat) {
        boolean fromFloat = PtxTypes.isFloat(from), toFloat = PtxTypes.isFloat(to);
        int toBytes = PtxTypes.size(to, 0);
        if (!fromFloat && !toFloat) {
            if (sat) {
                return bits -> PtxTypes.truncate(saturate(PtxTypes.asInteger(bits, from), to, PtxTypes.isSigned(from)), toBytes);
            }
            return bits -> PtxTypes.truncate(PtxTypes.asInteger(bits, from), toBytes);
        }
        if (!fromFloat) {                                         // integer → float
            boolean unsigned = !PtxTypes.isSigned(from);
            DirectedRounding.Mode directed = directed(mode, to);
            if (directed != null) {
                boolean f64 = to.equals(".f64");
                return bits -> {
                    long v = PtxTypes.asInteger(bits, from);
                    java.math.BigDecimal exact = new java.math.BigDecimal(unsigned ? Long.toUnsignedString(v) : Long.toString(v));
                    double s = exact.doubleValue();
                    double r = DirectedRounding.round(s, exact.compareTo(new java.math.BigDecimal(s)), f64, directed);
                    return FloatOps.write(r, f64, ftz, sat);
                };
            }
            return bits -> {
                long v = PtxTypes.asInteger(bits, from);
                double exact = unsigned && v < 0 ? unsignedToDouble(v) : v;
                float single = unsigned && v < 0 ? unsignedToFloat(v) : (float) v;
                return writeFloat(to, exact, single, ftz, sat);
            };
        }
        if (!toFloat) {                                           // float → integer: rounding to an integer, saturating
            String m = mode == null ? "rzi" : mode;
            return bits -> {
                double v = readFloat(from, bits, ftz);
                if (Double.isNaN(v)) return 0;
                double r = switch (m) {
                    case "rzi" -> v < 0 ? Math.ceil(v) : Math.floor(v);
                    case "rni" -> Math.rint(v);
                    case "rmi" -> Math.floor(v);
                    case "rpi" -> Math.ceil(v);
                    default -> throw new PtxException("cvt." + m + " to an integer is not implemented");
                };
                return PtxTypes.truncate(clampToInteger(r, to), toBytes);
            };
        }
        String m = mode;                                          // float → float
        DirectedRounding.Mode directed = directed(mode, to);
        if (directed != null) {
            boolean f64 = to.equals(".f64");
            return bits -> FloatOps.write(DirectedRounding.round(readFloat(from, bits, ftz), 0, f64, directed), f64, ftz, sat);
        }
        return bits -> {
            double v = readFloat(from, bits, ftz);
            if (m != null && m.endsWith("i")) {
                v = switch (m) {
                    case "rni" -> Math.rint(v);
                    case "rzi" -> v < 0 ? Math.ceil(v) : Math.floor(v);
                    case "rmi" -> Math.floor(v);
                    default -> Math.ceil(v);
                };
            } else if (m != null && !m.equals("rn")) {
                throw new PtxException("cvt." + m + to + from + " is not implemented");
            }
            return writeFloat(to, v, (float) v, ftz, sat);
        };
    }

    /** A directed rounding (.rz .rm .rp) to f32 or f64; null for round-to-nearest and integer rounding; others fail by name. */
    private static DirectedRounding.Mode directed(String mode, String to) {
        if (mode == null || mode.equals("rn") || mode.endsWith("i")) return null;
        if (!to.equals(".f32") && !to.equals(".f64")) throw new PtxException("cvt." + mode + to + " is not implemented");
        return switch (mode) {
            case "rz" -> DirectedRounding.Mode.ZERO;
            case "rm" -> DirectedRounding.Mode.DOWN;
            default -> DirectedRounding.Mode.UP;
        };
    }

    private static double readFloat(String type, long bits, boolean ftz) {
        return switch (type) {
            case ".f64" -> FloatOps.read(bits, true, ftz);
            case ".f32" -> FloatOps.read(bits, false, ftz);
            case ".f16" -> Float.float16ToFloat((short) bits);
            case ".bf16" -> Float.intBitsToFloat((int) (bits & 0xFFFF) << 16);
            default -> throw new PtxException("cvt from " + type + " is not implemented");
        };
    }

    /** A value rounded once to the target float type (from its exact double, or its single rounding for f32). */
    private static long writeFloat(String type, double exact, float single, boolean ftz, boolean sat) {
        return switch (type) {
            case ".f64" -> FloatOps.write(exact, true, ftz, sat);
            case ".f32" -> FloatOps.write(single, false, ftz, sat);
            case ".f16" -> Double.isNaN(exact) ? 0x7FFF : Float.floatToFloat16(roundToOdd(sat ? Math.min(1, Math.max(0, exact)) : exact)) & 0xFFFF;
            case ".bf16" -> bf16(roundToOdd(exact));
            default -> throw new PtxException("cvt to " + type + " is not implemented");
        };
    }

    /**
     * A double as a float rounded to odd: exact when it fits, otherwise the float toward zero with
     * its last bit set. Rounding that to nearest-even at half or bfloat16 precision (far fewer bits)
     * equals rounding the double directly, so f64 → f16/bf16 never rounds twice.
     */
    static float roundToOdd(double v) {
        float f = (float) v;
        if (Double.isNaN(v) || Float.isInfinite(f) && Double.isInfinite(v) || f == v) return f;
        if (Math.abs(f) > Math.abs(v)) f = Math.nextAfter(f, 0.0);
        return Float.intBitsToFloat(Float.floatToRawIntBits(f) | 1);
    }

    /** float → bfloat16 rounding to nearest even; NaN becomes the canonical 0x7FFF as on the hardware. */
    private static long bf16(float v) {
        if (Float.isNaN(v)) return 0x7FFF;
        int bits = Float.floatToRawIntBits(v);
        return ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16) & 0xFFFF;
    }

    private static long clampToInteger(double r, String type) {
        return switch (type) {
            case ".s8" -> (long) Math.max(Byte.MIN_VALUE, Math.min(Byte.MAX_VALUE, r));
            case ".u8" -> (long) Math.max(0, Math.min(255, r));
            case ".s16" -> (long) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, r));
            case ".u16" -> (long) Math.max(0, Math.min(65535, r));
            case ".s32" -> (long) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, r));
            case ".u32" -> (long) Math.max(0, Math.min(4294967295.0, r));
            case ".s64" -> (long) r;
            case ".u64" -> r <= 0 ? 0 : r >= 18446744073709551615.0 ? -1 : r >= 9223372036854775808.0
                    ? (long) (r - 9223372036854775808.0) ^ Long.MIN_VALUE : (long) r;
            default -> throw new PtxException("cvt to " + type + " is not implemented");
        };
    }

    private static long saturate(long v, String to, boolean fromSigned) {
        double r = fromSigned ? v : unsignedToDouble(v);
        return clampToInteger(r, to);
    }

    private static double unsignedToDouble(long v) {
        return new java.math.BigDecimal(Long.toUnsignedString(v)).doubleValue();
    }

    private static float unsignedToFloat(long v) {
        return new java.math.BigDecimal(Long.toUnsignedString(v)).floatValue();
    }
}
