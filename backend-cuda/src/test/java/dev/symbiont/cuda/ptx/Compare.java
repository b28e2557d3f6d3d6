package dev.symbiont.cuda.ptx;

/**
 * setp and set: compare two operands into a predicate (set: into a value) (and its complement when a second destination is
 * given as {@code p|q}), optionally combined with a third predicate by .and/.or/.xor.
 * Float comparisons follow IEEE: ordered ones are false on NaN, the u-forms true.
 */
final class Compare {
    private Compare() {}

    @FunctionalInterface
    interface Test { boolean on(long a, long b); }

    static Decoded.Op integer(Decoded d, Insn in, String type) { return build(d, in, type, integerTest(in, type)); }

    static Decoded.Op floating(Decoded d, Insn in, String type) { return build(d, in, type, floatTest(in, type)); }

    /**
     * set.CmpOp{.BoolOp}.dtype.stype d, a, b{, {!}c}: the comparison (combined like setp's) as a
     * value: all ones for an integer dtype, 1.0f for .f32, zero when false.
     */
    static Decoded.Op set(Decoded d, Insn in) {
        var types = in.types();
        if (types.size() != 2) throw new PtxException("set needs a destination and a source type");
        String dtype = types.get(0), stype = types.get(1);
        Test test = PtxTypes.isFloat(stype) ? floatTest(in, stype) : integerTest(in, stype);
        long trueBits = switch (dtype) {
            case ".u32", ".s32" -> 0xFFFFFFFFL;
            case ".f32" -> Float.floatToRawIntBits(1.0f);
            default -> throw new PtxException("the interpreter does not implement set with destination type " + dtype);
        };
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), stype), b = Operands.source(d, in.operand(2), stype);
        checkModifiers(in);
        Combine combine = combine(d, in);
        return (bl, t, f) -> f.r[dst] = combine.apply(bl, t, f, test.on(a.get(bl, t, f), b.get(bl, t, f))) ? trueBits : 0;
    }

    @FunctionalInterface
    private interface Combine { boolean apply(Block b, Machine.Thread t, Machine.Frame f, boolean r); }

    /** The optional .and/.or/.xor with a third predicate operand, {@code !}-negated when written so. */
    private static Combine combine(Decoded d, Insn in) {
        String op = in.has("and") ? "and" : in.has("or") ? "or" : in.has("xor") ? "xor" : null;
        if (op == null) return (b, t, f, r) -> r;
        String text = in.operand(3).strip();
        boolean negate = text.startsWith("!");
        Operands.Src c = Operands.source(d, negate ? text.substring(1) : text, ".pred");
        return switch (op) {
            case "and" -> (b, t, f, r) -> r && (c.get(b, t, f) != 0) != negate;
            case "or" -> (b, t, f, r) -> r || (c.get(b, t, f) != 0) != negate;
            default -> (b, t, f, r) -> r ^ (c.get(b, t, f) != 0) != negate;
        };
    }

    private static Test integerTest(Insn in, String type) {
        String cmp = in.mods().getFirst();
        boolean signed = PtxTypes.isSigned(type);
        Test test = switch (cmp) {
            case "eq" -> (a, b) -> a == b;
            case "ne" -> (a, b) -> a != b;
            case "lt", "lo" -> signed && cmp.equals("lt") ? (a, b) -> a < b : (a, b) -> Long.compareUnsigned(a, b) < 0;
            case "le", "ls" -> signed && cmp.equals("le") ? (a, b) -> a <= b : (a, b) -> Long.compareUnsigned(a, b) <= 0;
            case "gt", "hi" -> signed && cmp.equals("gt") ? (a, b) -> a > b : (a, b) -> Long.compareUnsigned(a, b) > 0;
            case "ge", "hs" -> signed && cmp.equals("ge") ? (a, b) -> a >= b : (a, b) -> Long.compareUnsigned(a, b) >= 0;
            default -> throw new PtxException("the interpreter does not implement setp." + cmp + type);
        };
        java.util.function.LongUnaryOperator ext = PtxTypes.extender(type);
        return (a, b) -> test.on(ext.applyAsLong(a), ext.applyAsLong(b));
    }

    private static Test floatTest(Insn in, String type) {
        String cmp = in.mods().getFirst();
        boolean f64 = type.equals(".f64");
        java.util.function.BiPredicate<Double, Double> test = switch (cmp) {
            case "eq" -> (a, b) -> a.doubleValue() == b.doubleValue();
            case "ne" -> (a, b) -> !a.isNaN() && !b.isNaN() && a.doubleValue() != b.doubleValue();
            case "lt" -> (a, b) -> a < b;
            case "le" -> (a, b) -> a <= b;
            case "gt" -> (a, b) -> a > b;
            case "ge" -> (a, b) -> a >= b;
            case "equ" -> (a, b) -> a.isNaN() || b.isNaN() || a.doubleValue() == b.doubleValue();
            case "neu" -> (a, b) -> a.doubleValue() != b.doubleValue();
            case "ltu" -> (a, b) -> !(a >= b);
            case "leu" -> (a, b) -> !(a > b);
            case "gtu" -> (a, b) -> !(a <= b);
            case "geu" -> (a, b) -> !(a < b);
            case "num" -> (a, b) -> !a.isNaN() && !b.isNaN();
            case "nan" -> (a, b) -> a.isNaN() || b.isNaN();
            default -> throw new PtxException("the interpreter does not implement setp." + cmp + type);
        };
        boolean ftz = in.has("ftz");
        return (a, b) -> test.test(FloatOps.read(a, f64, ftz), FloatOps.read(b, f64, ftz));
    }

    private static Decoded.Op build(Decoded d, Insn in, String type, Test test) {
        checkModifiers(in);
        String[] dests = in.operand(0).split("\\|");
        int p = d.register(dests[0]);
        int q = dests.length > 1 ? d.register(dests[1]) : -1;
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type);
        Combine combine = combine(d, in);
        return (bl, t, f) -> {
            boolean r = test.on(a.get(bl, t, f), b.get(bl, t, f));
            f.r[p] = combine.apply(bl, t, f, r) ? 1 : 0;
            if (q >= 0) f.r[q] = combine.apply(bl, t, f, !r) ? 1 : 0;
        };
    }

    private static void checkModifiers(Insn in) {
        for (String m : in.mods().subList(1, in.mods().size())) {
            if (!PtxTypes.isType("." + m) && !m.equals("ftz") && !m.equals("and") && !m.equals("or") && !m.equals("xor")) {
                throw new PtxException("the interpreter does not implement modifier ." + m + " of " + in.base());
            }
        }
    }
}
