package dev.symbiont.cuda.ptx;

/**
 * Floating-point instructions on .f32 and .f64 with round-to-nearest or a directed rounding mode
 * ({@link DirectedRounding}), .ftz and .sat. Single precision runs in Java float,
 * which is IEEE binary32, so add, mul, div, sqrt and fma round exactly as the hardware does.
 * The approximate instructions (ex2, lg2, sin, cos, tanh, rcp/rsqrt .approx) return the correctly
 * rounded value, within the hardware's documented error.
 */
final class FloatOps {
    private FloatOps() {}

    @FunctionalInterface
    private interface F2 { double apply(double a, double b); }

    @FunctionalInterface
    private interface F1 { double apply(double a); }

    static Decoded.Op decode(Decoded d, Insn in, String type) {
        boolean f64 = type.equals(".f64");
        DirectedRounding.Mode m = DirectedRounding.mode(in);
        if (m != null) return directed(d, in, type, f64, m);
        return switch (in.base()) {
            case "add" -> binary(d, in, type, f64 ? (a, b) -> a + b : (a, b) -> (float) a + (float) b);
            case "sub" -> binary(d, in, type, f64 ? (a, b) -> a - b : (a, b) -> (float) a - (float) b);
            case "mul" -> binary(d, in, type, f64 ? (a, b) -> a * b : (a, b) -> (float) a * (float) b);
            case "div" -> binary(d, in, type, f64 ? (a, b) -> a / b : (a, b) -> (float) a / (float) b);
            case "min" -> binary(d, in, type, (a, b) -> Double.isNaN(a) ? b : Double.isNaN(b) ? a : minimum(a, b));
            case "max" -> binary(d, in, type, (a, b) -> Double.isNaN(a) ? b : Double.isNaN(b) ? a : maximum(a, b));
            case "copysign" -> binary(d, in, type, (a, b) -> Math.copySign(b, a));
            case "fma", "mad" -> fma(d, in, type, f64);
            case "abs" -> unary(d, in, type, Math::abs);
            case "neg" -> unary(d, in, type, a -> -a);
            case "rcp" -> unary(d, in, type, f64 ? a -> 1.0 / a : a -> 1.0f / (float) a);
            case "sqrt" -> unary(d, in, type, f64 ? Math::sqrt : a -> (float) Math.sqrt(a));
            case "rsqrt" -> unary(d, in, type, a -> 1.0 / Math.sqrt(a));
            case "ex2" -> unary(d, in, type, a -> Math.pow(2, a));
            case "lg2" -> unary(d, in, type, a -> Math.log(a) / Math.log(2));
            case "sin" -> unary(d, in, type, Math::sin);
            case "cos" -> unary(d, in, type, Math::cos);
            case "tanh" -> unary(d, in, type, Math::tanh);
            case "testp" -> testp(d, in, type, f64);
            case "setp" -> Compare.floating(d, in, type);
            default -> throw new PtxException("the interpreter does not implement " + in.base() + type);
        };
    }

    /** The instructions that take a directed rounding mode (.rz .rm .rp). */
    private static Decoded.Op directed(Decoded d, Insn in, String type, boolean f64, DirectedRounding.Mode m) {
        return switch (in.base()) {
            case "add" -> binary(d, in, type, (a, b) -> DirectedRounding.add(a, b, f64, m));
            case "sub" -> binary(d, in, type, (a, b) -> DirectedRounding.add(a, -b, f64, m));
            case "mul" -> binary(d, in, type, (a, b) -> DirectedRounding.mul(a, b, f64, m));
            case "div" -> binary(d, in, type, (a, b) -> DirectedRounding.div(a, b, f64, m));
            case "rcp" -> unary(d, in, type, a -> DirectedRounding.div(1, a, f64, m));
            case "sqrt" -> unary(d, in, type, a -> DirectedRounding.sqrt(a, f64, m));
            case "fma", "mad" -> fma(d, in, type, f64);
            default -> throw new PtxException("the interpreter does not implement a rounding modifier on " + in.base() + type);
        };
    }

    /** Raw register bits as a double (an f32 widened exactly), flushing subnormals when asked. */
    static double read(long bits, boolean f64, boolean ftz) {
        if (f64) {
            double v = Double.longBitsToDouble(bits);
            return ftz && v != 0 && Math.abs(v) < Double.MIN_NORMAL ? Math.copySign(0.0, v) : v;
        }
        float v = Float.intBitsToFloat((int) bits);
        return ftz && v != 0 && Math.abs(v) < Float.MIN_NORMAL ? Math.copySign(0.0f, v) : v;
    }

    /** A result as register bits: rounded to the type once, flushed and saturated when asked. */
    static long write(double v, boolean f64, boolean ftz, boolean sat) {
        if (sat) v = Double.isNaN(v) ? 0 : Math.min(1, Math.max(0, v));
        if (f64) {
            if (ftz && v != 0 && Math.abs(v) < Double.MIN_NORMAL) v = Math.copySign(0.0, v);
            return Double.doubleToRawLongBits(v);
        }
        float x = (float) v;
        if (ftz && x != 0 && Math.abs(x) < Float.MIN_NORMAL) x = Math.copySign(0.0f, x);
        return Float.floatToRawIntBits(x) & 0xFFFFFFFFL;
    }

    private static double minimum(double a, double b) { return a == b ? (Math.copySign(1, a) < 0 ? a : b) : Math.min(a, b); }

    private static double maximum(double a, double b) { return a == b ? (Math.copySign(1, a) > 0 ? a : b) : Math.max(a, b); }

    private static void checkModifiers(Insn in) {
        for (String m : in.mods()) {
            if (PtxTypes.isType("." + m)) continue;
            switch (m) {
                case "rn", "rz", "rm", "rp", "ftz", "sat", "approx", "full" -> { }
                default -> throw new PtxException("the interpreter does not implement modifier ." + m + " of " + in.base());
            }
        }
    }

    private static Decoded.Op binary(Decoded d, Insn in, String type, F2 op) {
        checkModifiers(in);
        boolean f64 = type.equals(".f64"), ftz = in.has("ftz"), sat = in.has("sat");
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type);
        return (bl, t, f) -> f.r[dst] = write(op.apply(read(a.get(bl, t, f), f64, ftz), read(b.get(bl, t, f), f64, ftz)), f64, ftz, sat);
    }

    private static Decoded.Op unary(Decoded d, Insn in, String type, F1 op) {
        checkModifiers(in);
        boolean f64 = type.equals(".f64"), ftz = in.has("ftz"), sat = in.has("sat");
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type);
        return (bl, t, f) -> f.r[dst] = write(op.apply(read(a.get(bl, t, f), f64, ftz)), f64, ftz, sat);
    }

    private static Decoded.Op fma(Decoded d, Insn in, String type, boolean f64) {
        checkModifiers(in);
        DirectedRounding.Mode m = DirectedRounding.mode(in);
        if (m == null && !in.has("rn")) throw new PtxException(in.base() + type + " without a rounding modifier is not implemented");
        boolean ftz = in.has("ftz"), sat = in.has("sat");
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type),
                c = Operands.source(d, in.operand(3), type);
        return (bl, t, f) -> {
            double x = read(a.get(bl, t, f), f64, ftz), y = read(b.get(bl, t, f), f64, ftz), z = read(c.get(bl, t, f), f64, ftz);
            double r = m != null ? DirectedRounding.fma(x, y, z, f64, m) : f64 ? Math.fma(x, y, z) : Math.fma((float) x, (float) y, (float) z);
            f.r[dst] = write(r, f64, ftz, sat);
        };
    }

    private static Decoded.Op testp(Decoded d, Insn in, String type, boolean f64) {
        String what = in.mods().getFirst();
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type);
        double minNormal = f64 ? Double.MIN_NORMAL : Float.MIN_NORMAL;
        java.util.function.DoublePredicate test = switch (what) {
            case "finite" -> Double::isFinite;
            case "infinite" -> Double::isInfinite;
            case "number" -> v -> !Double.isNaN(v);
            case "notanumber" -> Double::isNaN;
            case "normal" -> v -> Double.isFinite(v) && Math.abs(v) >= minNormal;
            case "subnormal" -> v -> v != 0 && Math.abs(v) < minNormal;
            default -> throw new PtxException("the interpreter does not implement testp." + what);
        };
        return (bl, t, f) -> f.r[dst] = test.test(read(a.get(bl, t, f), f64, false)) ? 1 : 0;
    }
}
