package dev.symbiont.cuda.ptx;

/**
 * setp: compares two operands into a predicate (and its complement when a second destination is
 * given as {@code p|q}), optionally combined with a third predicate by .and/.or/.xor.
 * Float comparisons follow IEEE: ordered ones are false on NaN, the u-forms true.
 */
final class Compare {
    private Compare() {}

    @FunctionalInterface
    interface Test { boolean on(long a, long b); }

    static Decoded.Op integer(Decoded d, Insn in, String type) {
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
        return build(d, in, type, (a, b) -> test.on(PtxTypes.asInteger(a, type), PtxTypes.asInteger(b, type)));
    }

    static Decoded.Op floating(Decoded d, Insn in, String type) {
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
        return build(d, in, type, (a, b) -> test.test(FloatOps.read(a, f64, ftz), FloatOps.read(b, f64, ftz)));
    }

    private static Decoded.Op build(Decoded d, Insn in, String type, Test test) {
        for (String m : in.mods().subList(1, in.mods().size())) {
            if (!PtxTypes.isType("." + m) && !m.equals("ftz") && !m.equals("and") && !m.equals("or") && !m.equals("xor")) {
                throw new PtxException("the interpreter does not implement modifier ." + m + " of setp");
            }
        }
        String[] dests = in.operand(0).split("\\|");
        int p = d.register(dests[0]);
        int q = dests.length > 1 ? d.register(dests[1]) : -1;
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type);
        String combine = in.has("and") ? "and" : in.has("or") ? "or" : in.has("xor") ? "xor" : null;
        Operands.Src c = combine == null ? null : Operands.source(d, in.operand(3), ".pred");
        return (bl, t, f) -> {
            boolean r = test.on(a.get(bl, t, f), b.get(bl, t, f));
            boolean s = !r;
            if (combine != null) {
                boolean other = c.get(bl, t, f) != 0;
                switch (combine) {
                    case "and" -> { r = r && other; s = s && other; }
                    case "or" -> { r = r || other; s = s || other; }
                    default -> { r = r ^ other; s = s ^ other; }
                }
            }
            f.r[p] = r ? 1 : 0;
            if (q >= 0) f.r[q] = s ? 1 : 0;
        };
    }
}
