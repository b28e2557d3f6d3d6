package dev.symbiont.cuda.ptx;

/**
 * Integer, bitwise and predicate instructions. Operands are read in the instruction's type
 * (signed or unsigned, 8 to 64 bits) and results kept at its width.
 */
final class IntegerOps {
    private IntegerOps() {}

    @FunctionalInterface
    private interface Binary { long apply(long a, long b); }

    static Decoded.Op decode(Decoded d, Insn in, String type) {
        int bytes = PtxTypes.size(type, 0), bits = bytes * 8;
        boolean signed = PtxTypes.isSigned(type);
        return switch (in.base()) {
            case "add" -> { in.only(); yield binary(d, in, type, (a, b) -> a + b); }
            case "sub" -> { in.only(); yield binary(d, in, type, (a, b) -> a - b); }
            case "mul", "mul24" -> multiply(d, in, type, bits, signed, false);
            case "mad", "mad24" -> multiply(d, in, type, bits, signed, true);
            case "div" -> { in.only(); yield binary(d, in, type, (a, b) -> b == 0 ? -1 : signed ? a / b : Long.divideUnsigned(a, b)); }
            case "rem" -> { in.only(); yield binary(d, in, type, (a, b) -> b == 0 ? a : signed ? a % b : Long.remainderUnsigned(a, b)); }
            case "min" -> { in.only(); yield binary(d, in, type, (a, b) -> signed ? Math.min(a, b) : Long.compareUnsigned(a, b) <= 0 ? a : b); }
            case "max" -> { in.only(); yield binary(d, in, type, (a, b) -> signed ? Math.max(a, b) : Long.compareUnsigned(a, b) >= 0 ? a : b); }
            case "abs" -> { in.only(); yield unary(d, in, type, Math::abs); }
            case "neg" -> { in.only(); yield unary(d, in, type, a -> -a); }
            case "and" -> type.equals(".pred") ? predicate(d, in, (a, b) -> a & b) : binary(d, in, type, (a, b) -> a & b);
            case "or" -> type.equals(".pred") ? predicate(d, in, (a, b) -> a | b) : binary(d, in, type, (a, b) -> a | b);
            case "xor" -> type.equals(".pred") ? predicate(d, in, (a, b) -> a ^ b) : binary(d, in, type, (a, b) -> a ^ b);
            case "not" -> type.equals(".pred") ? unaryPredicate(d, in) : unary(d, in, type, a -> ~a);
            case "cnot" -> unary(d, in, type, a -> a == 0 ? 1 : 0);
            case "shl" -> shift(d, in, type, bits, (a, n) -> n >= bits ? 0 : a << n);
            case "shr" -> shift(d, in, type, bits, (a, n) -> signed ? (n >= bits ? (a < 0 ? -1 : 0) : a >> n)
                    : (n >= bits ? 0 : a >>> n));
            case "popc" -> unaryTo32(d, in, type, Long::bitCount);
            case "clz" -> unaryTo32(d, in, type, a -> Long.numberOfLeadingZeros(a) - (64 - bits));
            case "brev" -> unary(d, in, type, a -> Long.reverse(a) >>> (64 - bits));
            case "bfe" -> bitFieldExtract(d, in, type, bits, signed);
            case "bfi" -> bitFieldInsert(d, in, type, bits);
            case "prmt" -> permute(d, in);
            case "setp" -> Compare.integer(d, in, type);
            default -> throw new PtxException("the interpreter does not implement " + in.base() + type);
        };
    }

    private static Decoded.Op binary(Decoded d, Insn in, String type, Binary op) {
        int dst = Instructions.dest(d, in, 0);
        int bytes = PtxTypes.size(type, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type);
        java.util.function.LongUnaryOperator ext = PtxTypes.extender(type);
        return (bl, t, f) -> f.r[dst] = PtxTypes.truncate(op.apply(ext.applyAsLong(a.get(bl, t, f)), ext.applyAsLong(b.get(bl, t, f))), bytes);
    }

    private static Decoded.Op unary(Decoded d, Insn in, String type, java.util.function.LongUnaryOperator op) {
        int dst = Instructions.dest(d, in, 0);
        int bytes = PtxTypes.size(type, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type);
        java.util.function.LongUnaryOperator ext = PtxTypes.extender(type);
        return (bl, t, f) -> f.r[dst] = PtxTypes.truncate(op.applyAsLong(ext.applyAsLong(a.get(bl, t, f))), bytes);
    }

    private static Decoded.Op unaryTo32(Decoded d, Insn in, String type, java.util.function.LongUnaryOperator op) {
        int dst = Instructions.dest(d, in, 0);
        int bytes = PtxTypes.size(type, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type);
        return (bl, t, f) -> f.r[dst] = op.applyAsLong(PtxTypes.truncate(a.get(bl, t, f), bytes)) & 0xFFFFFFFFL;
    }

    private static Decoded.Op predicate(Decoded d, Insn in, Binary op) {
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), ".pred"), b = Operands.source(d, in.operand(2), ".pred");
        return (bl, t, f) -> f.r[dst] = op.apply(a.get(bl, t, f) != 0 ? 1 : 0, b.get(bl, t, f) != 0 ? 1 : 0);
    }

    private static Decoded.Op unaryPredicate(Decoded d, Insn in) {
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), ".pred");
        return (bl, t, f) -> f.r[dst] = a.get(bl, t, f) != 0 ? 0 : 1;
    }

    private static Decoded.Op shift(Decoded d, Insn in, String type, int bits, Binary op) {
        int dst = Instructions.dest(d, in, 0);
        int bytes = bits / 8;
        Operands.Src a = Operands.source(d, in.operand(1), type), n = Operands.source(d, in.operand(2), ".u32");
        java.util.function.LongUnaryOperator ext = PtxTypes.extender(type);
        return (bl, t, f) -> f.r[dst] = PtxTypes.truncate(op.apply(ext.applyAsLong(a.get(bl, t, f)),
                n.get(bl, t, f) & 0xFFFFFFFFL), bytes);
    }

    /** mul/mad with .lo, .hi or .wide (and mul24/mad24 on the low 24 bits). */
    private static Decoded.Op multiply(Decoded d, Insn in, String type, int bits, boolean signed, boolean add) {
        in.only("lo", "hi", "wide", "sat");
        boolean wide = in.has("wide"), hi = in.has("hi");
        boolean low24 = in.base().endsWith("24");
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type);
        String cType = wide ? (signed ? ".s" : ".u") + (2 * bits) : type;
        Operands.Src c = add ? Operands.source(d, in.operand(3), cType) : null;
        int outBytes = wide ? 2 * bits / 8 : bits / 8;
        java.util.function.LongUnaryOperator ext = PtxTypes.extender(type), extC = PtxTypes.extender(cType);
        return (bl, t, f) -> {
            long x = ext.applyAsLong(a.get(bl, t, f)), y = ext.applyAsLong(b.get(bl, t, f));
            if (low24) {
                x = signed ? (x << 40) >> 40 : x & 0xFFFFFF;
                y = signed ? (y << 40) >> 40 : y & 0xFFFFFF;
            }
            long r;
            if (hi) r = bits == 64 ? (signed ? Math.multiplyHigh(x, y) : Math.unsignedMultiplyHigh(x, y)) : (x * y) >> bits;
            else r = x * y;
            if (add) r += extC.applyAsLong(c.get(bl, t, f));
            f.r[dst] = PtxTypes.truncate(r, outBytes);
        };
    }

    private static Decoded.Op bitFieldExtract(Decoded d, Insn in, String type, int bits, boolean signed) {
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type), pos = Operands.source(d, in.operand(2), ".u32"),
                len = Operands.source(d, in.operand(3), ".u32");
        return (bl, t, f) -> {
            long v = PtxTypes.truncate(a.get(bl, t, f), bits / 8);
            int p = (int) (pos.get(bl, t, f) & 0xFF), l = (int) (len.get(bl, t, f) & 0xFF);
            long r = 0;
            for (int i = 0; i < bits; i++) {
                long bit;
                if (i < l && p + i < bits) bit = v >>> (p + i) & 1;
                else if (signed && l > 0) bit = (v >>> Math.min(p + l - 1, bits - 1)) & 1;
                else bit = 0;
                r |= bit << i;
            }
            f.r[dst] = PtxTypes.truncate(r, bits / 8);
        };
    }

    private static Decoded.Op bitFieldInsert(Decoded d, Insn in, String type, int bits) {
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type),
                pos = Operands.source(d, in.operand(3), ".u32"), len = Operands.source(d, in.operand(4), ".u32");
        return (bl, t, f) -> {
            long r = b.get(bl, t, f), v = a.get(bl, t, f);
            int p = (int) (pos.get(bl, t, f) & 0xFF), l = (int) (len.get(bl, t, f) & 0xFF);
            for (int i = 0; i < l && p + i < bits; i++) r = (r & ~(1L << (p + i))) | ((v >>> i & 1) << (p + i));
            f.r[dst] = PtxTypes.truncate(r, bits / 8);
        };
    }

    /** prmt.b32 d, a, b, c (default mode): each result byte picks one of the eight bytes of {b, a}, or its sign. */
    private static Decoded.Op permute(Decoded d, Insn in) {
        in.only();
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), ".b32"), b = Operands.source(d, in.operand(2), ".b32"),
                c = Operands.source(d, in.operand(3), ".b32");
        return (bl, t, f) -> {
            long bytes = (a.get(bl, t, f) & 0xFFFFFFFFL) | (b.get(bl, t, f) & 0xFFFFFFFFL) << 32;
            long sel = c.get(bl, t, f), r = 0;
            for (int i = 0; i < 4; i++) {
                int s = (int) (sel >>> (4 * i) & 0xF);
                long byteValue = bytes >>> (8 * (s & 7)) & 0xFF;
                if ((s & 8) != 0) byteValue = (byteValue & 0x80) != 0 ? 0xFF : 0;
                r |= byteValue << (8 * i);
            }
            f.r[dst] = r;
        };
    }
}
