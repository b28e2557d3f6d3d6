package dev.symbiont.cuda.ptx;

/**
 * Decodes one instruction into an {@link Decoded.Op}: the guard predicate, then the opcode's
 * family. Every family checks its modifiers and fails on one it does not implement.
 */
final class Instructions {
    private Instructions() {}

    static Decoded.Op decode(Decoded d, String text, int line) {
        Insn in = Insn.parse(text);
        Decoded.Op op = switch (in.base()) {
            case "add", "sub", "mul", "mad", "div", "rem", "abs", "neg", "min", "max", "fma", "rcp", "sqrt", "rsqrt",
                 "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp", "and", "or", "xor", "not", "cnot", "shl", "shr",
                 "popc", "clz", "brev", "bfe", "bfi", "prmt", "setp", "selp", "mul24", "mad24", "fns" -> Arithmetic.decode(d, in);
            case "set" -> Compare.set(d, in);
            case "cvt", "mov", "cvta" -> Convert.decode(d, in);
            case "ld", "ldu", "st", "atom", "red" -> MemoryOps.decode(d, in);
            case "bra", "ret", "exit", "call", "bar", "barrier", "membar", "fence", "nanosleep", "trap" -> Control.decode(d, in);
            case "shfl", "vote", "activemask" -> WarpOps.decode(d, in);
            case "mma", "ldmatrix" -> MatrixOps.decode(d, in);
            default -> throw new PtxException("the interpreter does not implement instruction " + in.base());
        };
        if (in.guard() == null) return op;
        int p = d.register(in.guard());
        boolean negated = in.negated();
        Decoded.Op inner = op;
        return (b, t, f) -> {
            if ((f.r[p] != 0) != negated) inner.run(b, t, f);
        };
    }

    /** The destination register of operand {@code i}; -1 for the sink {@code _}. */
    static int dest(Decoded d, Insn in, int i) {
        String o = in.operand(i);
        return o.equals("_") ? -1 : d.register(o);
    }
}
