package dev.symbiont.cuda.ptx;

/** Routes an arithmetic, logic or comparison instruction to the integer or floating-point decoder by its type. */
final class Arithmetic {
    private Arithmetic() {}

    static Decoded.Op decode(Decoded d, Insn in) {
        if (in.base().equals("selp")) return select(d, in);
        String type = in.type();
        boolean floating = type.equals(".f32") || type.equals(".f64");
        if (type.equals(".f16") || type.equals(".bf16") || type.equals(".f16x2") || type.equals(".bf16x2")) {
            throw new PtxException("the interpreter does not implement " + in.base() + type);
        }
        return floating ? FloatOps.decode(d, in, type) : IntegerOps.decode(d, in, type);
    }

    /** selp.type d, a, b, p: a if p else b, any type (bits move unchanged). */
    private static Decoded.Op select(Decoded d, Insn in) {
        in.only();
        String type = in.type();
        int dst = Instructions.dest(d, in, 0);
        Operands.Src a = Operands.source(d, in.operand(1), type), b = Operands.source(d, in.operand(2), type);
        int p = d.register(in.operand(3));
        int bytes = PtxTypes.size(type, 0);
        return (bl, t, f) -> f.r[dst] = PtxTypes.truncate(f.r[p] != 0 ? a.get(bl, t, f) : b.get(bl, t, f), bytes);
    }
}
