package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * ld, st, atom and red in every state space (param, global, const, shared, local and generic),
 * scalar and .v2/.v4, checked against the allocation, the block's shared size or the thread's
 * local memory. Shared accesses feed the race check; atomics are exempt from it.
 */
final class MemoryOps {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private MemoryOps() {}

    /** An address operand: a base (register or symbol) plus a constant offset, and the space a symbol names. */
    record Address(Operands.Src base, long offset, String symbolSpace) {
        long get(Block b, Machine.Thread t, Machine.Frame f) { return base.get(b, t, f) + offset; }
    }

    static Address address(Decoded d, String text) {
        String s = text.strip();
        if (!s.startsWith("[") || !s.endsWith("]")) throw new PtxException("expected an address, got " + text);
        s = s.substring(1, s.length() - 1).strip();
        long offset = 0;
        int plus = s.indexOf('+');
        if (plus > 0) {
            offset = Operands.parseInteger(s.substring(plus + 1).strip(), 0);
            s = s.substring(0, plus).strip();
        }
        String space = d.isSymbol(s) && !d.isRegister(s) ? d.symbol(s).space() : null;
        return new Address(Operands.source(d, s, ".u64"), offset, space);
    }

    static Decoded.Op decode(Decoded d, Insn in) {
        String space = spaceOf(in);
        return switch (in.base()) {
            case "ld", "ldu" -> load(d, in, space);
            case "st" -> store(d, in, space);
            default -> Atomics.decode(d, in, space);
        };
    }

    static String spaceOf(Insn in) {
        for (String s : new String[] {"global", "shared", "local", "param", "const"}) if (in.has(s)) return s;
        return "generic";
    }

    private static void checkModifiers(Insn in) {
        for (String m : in.mods()) {
            if (PtxTypes.isType("." + m)) continue;
            switch (m) {
                case "global", "shared", "local", "param", "const", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "v2", "v4",
                     "volatile", "relaxed", "weak", "cta", "gpu", "sys" -> { }
                default -> throw new PtxException("the interpreter does not implement modifier ." + m + " of " + in.base());
            }
        }
    }

    private static int[] registers(Decoded d, String operand) {
        String s = operand.strip();
        String[] parts = s.startsWith("{") ? s.substring(1, s.length() - 1).split(",") : new String[] {s};
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) out[i] = parts[i].strip().equals("_") ? -1 : d.register(parts[i]);
        return out;
    }

    private static Decoded.Op load(Decoded d, Insn in, String space) {
        checkModifiers(in);
        String type = in.type();
        int size = PtxTypes.size(type, 0);
        int[] dst = registers(d, in.operand(0));
        Address a = address(d, in.operand(1));
        Reader reader = reader(type);
        return (b, t, f) -> {
            long at = a.get(b, t, f);
            MemorySegment m = resolve(b, t, f, space, a, at, size * dst.length, false, 0);
            for (int i = 0; i < dst.length; i++) if (dst[i] >= 0) f.r[dst[i]] = reader.read(m, i * size);
        };
    }

    private static Decoded.Op store(Decoded d, Insn in, String space) {
        checkModifiers(in);
        String type = in.type();
        int size = PtxTypes.size(type, 0);
        Address a = address(d, in.operand(0));
        String value = in.operand(1).strip();
        String[] parts = value.startsWith("{") ? value.substring(1, value.length() - 1).split(",") : new String[] {value};
        Operands.Src[] src = new Operands.Src[parts.length];
        for (int i = 0; i < parts.length; i++) src[i] = Operands.source(d, parts[i], type);
        return (b, t, f) -> {
            long at = a.get(b, t, f);
            MemorySegment m = resolve(b, t, f, space, a, at, size * src.length, true, 0);
            for (int i = 0; i < src.length; i++) write(m, i * size, size, src[i].get(b, t, f));
        };
    }

    /** The bytes an access touches, after the checks of its space. */
    static MemorySegment resolve(Block b, Machine.Thread t, Machine.Frame f, String space, Address a, long at, int bytes,
                                 boolean write, int line) {
        String what = write ? "write" : "read";
        switch (space) {
            case "param":
                MemorySegment area = "call".equals(a.symbolSpace()) ? f.callArea : f.params;
                if (at < 0 || at + bytes > area.byteSize()) {
                    throw new PtxException("out-of-bounds param " + what + " of " + bytes + " bytes at offset " + at
                            + " (the parameters take " + area.byteSize() + " bytes)");
                }
                if (write && area == f.params && f.caller == null) throw new PtxException("a kernel cannot write its parameters");
                return area.asSlice(at, bytes);
            case "shared":
                return shared(b, t, at, bytes, write);
            case "local":
                return b.local(t, at, bytes, what);
            case "generic":
                if (at >= Block.SHARED_WINDOW && at < Block.SHARED_WINDOW + Block.WINDOW_SIZE) {
                    return shared(b, t, at - Block.SHARED_WINDOW, bytes, write);
                }
                if (at >= Block.LOCAL_WINDOW && at < Block.LOCAL_WINDOW + Block.WINDOW_SIZE) {
                    return b.local(t, at - Block.LOCAL_WINDOW, bytes, what);
                }
                return b.global.slice(at, bytes, what);
            default:
                return b.global.slice(at, bytes, what);
        }
    }

    private static MemorySegment shared(Block b, Machine.Thread t, long at, int bytes, boolean write) {
        MemorySegment m = b.shared.slice(at, bytes, write ? "write" : "read");
        int line = t.frame.program.lines.get(t.frame.pc - 1);
        if (write) b.shared.write(at, bytes, t.linear, b.interval, line);
        else b.shared.read(at, bytes, t.linear, b.interval, line);
        return m;
    }

    /** A load of one type, resolved at decode so the op does not switch on the type per execution. */
    @FunctionalInterface
    interface Reader { long read(MemorySegment m, long offset); }

    static Reader reader(String type) {
        return switch (type) {
            case ".s8" -> (m, o) -> m.get(ValueLayout.JAVA_BYTE, o);
            case ".u8", ".b8" -> (m, o) -> m.get(ValueLayout.JAVA_BYTE, o) & 0xFF;
            case ".s16" -> (m, o) -> m.get(SHORT, o);
            case ".u16", ".b16", ".f16", ".bf16" -> (m, o) -> m.get(SHORT, o) & 0xFFFF;
            case ".s32" -> (m, o) -> m.get(INT, o);
            case ".u32", ".b32", ".f32" -> (m, o) -> m.get(INT, o) & 0xFFFFFFFFL;
            default -> (m, o) -> m.get(LONG, o);
        };
    }

    static long read(MemorySegment m, long offset, String type) {
        return switch (type) {
            case ".s8" -> m.get(ValueLayout.JAVA_BYTE, offset);
            case ".u8", ".b8" -> m.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
            case ".s16" -> m.get(SHORT, offset);
            case ".u16", ".b16", ".f16", ".bf16" -> m.get(SHORT, offset) & 0xFFFF;
            case ".s32" -> m.get(INT, offset);
            case ".u32", ".b32", ".f32" -> m.get(INT, offset) & 0xFFFFFFFFL;
            default -> m.get(LONG, offset);
        };
    }

    static void write(MemorySegment m, long offset, int size, long value) {
        switch (size) {
            case 1 -> m.set(ValueLayout.JAVA_BYTE, offset, (byte) value);
            case 2 -> m.set(SHORT, offset, (short) value);
            case 4 -> m.set(INT, offset, (int) value);
            default -> m.set(LONG, offset, value);
        }
    }
}
