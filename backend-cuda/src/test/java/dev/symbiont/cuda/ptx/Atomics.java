package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;

/**
 * atom (returns the old value) and red (does not) on global, shared and generic addresses. Blocks
 * and their threads run one at a time, so each read-modify-write is atomic as it stands; shared
 * atomics do not take part in the race check, as on racecheck.
 */
final class Atomics {
    private Atomics() {}

    @FunctionalInterface
    private interface Update { long apply(long old, long operand, long compare); }

    static Decoded.Op decode(Decoded d, Insn in, String space) {
        boolean returns = in.base().equals("atom");
        String type = in.type();
        int size = PtxTypes.size(type, 0);
        boolean f64 = type.equals(".f64"), floating = PtxTypes.isFloat(type), signed = PtxTypes.isSigned(type);
        String op = null;
        for (String m : in.mods()) {
            switch (m) {
                case "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas" -> op = m;
                case "global", "shared", "relaxed", "acquire", "release", "acq_rel", "gpu", "cta", "sys", "noftz" -> { }
                default -> { if (!PtxTypes.isType("." + m)) throw new PtxException("the interpreter does not implement modifier ." + m + " of " + in.base()); }
            }
        }
        if (op == null) throw new PtxException(in.base() + " without an operation");
        Update u = switch (op) {
            case "add" -> floating
                    ? (o, v, c) -> FloatOps.write(FloatOps.read(o, f64, false) + FloatOps.read(v, f64, false), f64, false, false)
                    : (o, v, c) -> o + v;
            case "min" -> floating ? (o, v, c) -> FloatOps.write(Math.min(FloatOps.read(o, f64, false), FloatOps.read(v, f64, false)), f64, false, false)
                    : (o, v, c) -> compare(o, v, type, signed) <= 0 ? o : v;
            case "max" -> floating ? (o, v, c) -> FloatOps.write(Math.max(FloatOps.read(o, f64, false), FloatOps.read(v, f64, false)), f64, false, false)
                    : (o, v, c) -> compare(o, v, type, signed) >= 0 ? o : v;
            case "inc" -> (o, v, c) -> Long.compareUnsigned(o & 0xFFFFFFFFL, v & 0xFFFFFFFFL) >= 0 ? 0 : o + 1;
            case "dec" -> (o, v, c) -> (o & 0xFFFFFFFFL) == 0 || Long.compareUnsigned(o & 0xFFFFFFFFL, v & 0xFFFFFFFFL) > 0 ? v : o - 1;
            case "and" -> (o, v, c) -> o & v;
            case "or" -> (o, v, c) -> o | v;
            case "xor" -> (o, v, c) -> o ^ v;
            case "exch" -> (o, v, c) -> v;
            default -> (o, v, c) -> o == c ? v : o;        // cas: operand 1 is the compare value, 2 the new one
        };
        int first = returns ? 1 : 0;
        int dst = returns ? Instructions.dest(d, in, 0) : -1;
        MemoryOps.Address a = MemoryOps.address(d, in.operand(first));
        boolean cas = op.equals("cas");
        Operands.Src compareWith = cas ? Operands.source(d, in.operand(first + 1), type) : null;
        Operands.Src operand = Operands.source(d, in.operand(cas ? first + 2 : first + 1), type);
        return (b, t, f) -> {
            long at = a.get(b, t, f);
            MemorySegment m = atomicSlice(b, t, f, space, a, at, size);
            long old = MemoryOps.read(m, 0, size == 4 ? ".u32" : size == 8 ? ".u64" : ".u16");
            long v = PtxTypes.truncate(operand.get(b, t, f), size);
            long c = cas ? PtxTypes.truncate(compareWith.get(b, t, f), size) : 0;
            MemoryOps.write(m, 0, size, PtxTypes.truncate(u.apply(old, v, c), size));
            if (dst >= 0) f.r[dst] = old;
        };
    }

    private static int compare(long a, long b, String type, boolean signed) {
        long x = PtxTypes.asInteger(a, type), y = PtxTypes.asInteger(b, type);
        return signed ? Long.compare(x, y) : Long.compareUnsigned(x, y);
    }

    private static MemorySegment atomicSlice(Block b, Machine.Thread t, Machine.Frame f, String space, MemoryOps.Address a,
                                             long at, int size) {
        if (space.equals("shared")) return b.shared.slice(at, size, "atomic");
        if (space.equals("generic") && at >= Block.SHARED_WINDOW && at < Block.SHARED_WINDOW + Block.WINDOW_SIZE) {
            return b.shared.slice(at - Block.SHARED_WINDOW, size, "atomic");
        }
        return b.global.slice(at, size, "atomic");
    }
}
