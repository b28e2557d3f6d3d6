package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Warp-wide matrix instructions: {@code mma.sync.aligned} (m16n8k16 and m16n8k8, row.col, bf16 or
 * f16 inputs, f32 accumulation) and {@code ldmatrix.sync.aligned.m8n8.x1/.x2/.x4(.trans).shared.b16}.
 * Both are collectives of the whole warp: each lane holds a piece of a fragment, laid out as the
 * PTX ISA's "Matrix Fragments for mma.m16n8k16" and "ldmatrix" sections say, so the interpreter
 * gathers the 32 lanes' registers into whole matrices, computes, and scatters the result back.
 * A wrong layout in a kernel therefore gives a wrong product here as on the hardware.
 */
final class MatrixOps {
    private static final long FULL_WARP = 0xFFFF_FFFFL;

    private MatrixOps() {}

    static Decoded.Op decode(Decoded d, Insn in) {
        return in.base().equals("mma") ? mma(d, in) : ldmatrix(d, in);
    }

    /** The registers of a braced vector operand such as {@code {%r1, %r2}}; a source may be an immediate. */
    private static List<String> vector(Insn in, int i, int expected) {
        String s = in.operand(i).strip();
        if (!s.startsWith("{") || !s.endsWith("}")) throw new PtxException(in.base() + " operand " + (i + 1) + " must be a {...} vector, got " + s);
        List<String> parts = Insn.split(s.substring(1, s.length() - 1));
        if (parts.size() != expected) {
            throw new PtxException(in.base() + " operand " + (i + 1) + " needs " + expected + " registers, got " + parts.size());
        }
        return parts;
    }

    /**
     * mma.sync.aligned.m16n8k{16,8}.row.col.f32.{bf16,f16}.{bf16,f16}.f32 d, a, b, c: D = A·B + C with
     * A 16×K row-major, B K×8 column-major, C and D 16×8 float32. The products of two 16-bit floats
     * are exact in double and so is their sum here; the hardware's order and intermediate precision
     * are unspecified, so tests compare within a tolerance.
     */
    private static Decoded.Op mma(Decoded d, Insn in) {
        String shape = in.mods().stream().filter(m -> m.matches("m\\d+n\\d+k\\d+")).findFirst().orElse("(no shape)");
        List<String> types = in.types();
        String what = "mma." + String.join(".", in.mods());
        boolean supportedShape = shape.equals("m16n8k16") || shape.equals("m16n8k8");
        boolean supportedTypes = types.size() == 4 && types.get(0).equals(".f32") && types.get(3).equals(".f32")
                && types.get(1).equals(types.get(2)) && (types.get(1).equals(".bf16") || types.get(1).equals(".f16"));
        if (!in.has("sync") || !in.has("aligned") || !in.has("row") || !in.has("col") || !supportedShape || !supportedTypes) {
            throw new PtxException("the interpreter does not implement " + what + " (shape " + shape + ", types " + String.join("", types)
                    + "): only m16n8k16 and m16n8k8, .row.col, f32 accumulators and bf16 or f16 inputs");
        }
        in.only("sync", "aligned", shape, "row", "col");
        int k = shape.equals("m16n8k16") ? 16 : 8;
        boolean bf16 = types.get(1).equals(".bf16");
        int aRegs = k / 4, bRegs = k / 8;
        int[] dst = registers(d, vector(in, 0, 4));
        Operands.Src[] src = new Operands.Src[aRegs + bRegs + 4];
        List<String> a = vector(in, 1, aRegs), b = vector(in, 2, bRegs), c = vector(in, 3, 4);
        for (int i = 0; i < aRegs; i++) src[i] = Operands.source(d, a.get(i), ".b32");
        for (int i = 0; i < bRegs; i++) src[aRegs + i] = Operands.source(d, b.get(i), ".b32");
        for (int i = 0; i < 4; i++) src[aRegs + bRegs + i] = Operands.source(d, c.get(i), ".f32");
        return WarpOps.collective((blk, t, f) -> {
            long[] o = new long[1 + src.length];
            o[0] = FULL_WARP;
            for (int i = 0; i < src.length; i++) o[1 + i] = src[i].get(blk, t, f);
            return o;
        }, (blk, lanes) -> {
            double[][] am = new double[16][k], bm = new double[k][8], cm = new double[16][8];
            for (Machine.Thread t : lanes) {
                long[] o = t.warpOperands;
                int g = t.lane >> 2, q = t.lane & 3;
                for (int r = 0; r < aRegs; r++) {        // A: register r holds row g (+8 for odd r), columns 2q, 2q+1 (+8 for r >= 2)
                    for (int h = 0; h < 2; h++) am[g + (r & 1) * 8][2 * q + h + (r >> 1) * 8] = half(o[1 + r], h, bf16);
                }
                for (int r = 0; r < bRegs; r++) {        // B: register r holds rows 2q, 2q+1 (+8 for r = 1) of column g
                    for (int h = 0; h < 2; h++) bm[2 * q + h + r * 8][g] = half(o[1 + aRegs + r], h, bf16);
                }
                for (int i = 0; i < 4; i++) cm[g + (i >> 1) * 8][2 * q + (i & 1)] = Float.intBitsToFloat((int) o[1 + aRegs + bRegs + i]);
            }
            for (Machine.Thread t : lanes) {
                int g = t.lane >> 2, q = t.lane & 3;
                for (int i = 0; i < 4; i++) {            // C and D: element i at row g (+8 for i >= 2), column 2q + (i & 1)
                    int row = g + (i >> 1) * 8, col = 2 * q + (i & 1);
                    double sum = cm[row][col];
                    for (int kk = 0; kk < k; kk++) sum += am[row][kk] * bm[kk][col];
                    if (dst[i] >= 0) t.frame.r[dst[i]] = Float.floatToRawIntBits((float) sum) & 0xFFFF_FFFFL;
                }
            }
        });
    }

    /** The 16-bit float in half {@code h} (0: low bits, the lower-indexed element) of a register. */
    private static double half(long register, int h, boolean bf16) {
        int bits = (int) (register >>> (16 * h)) & 0xFFFF;
        return bf16 ? Float.intBitsToFloat(bits << 16) : Float.float16ToFloat((short) bits);
    }

    private static int[] registers(Decoded d, List<String> names) {
        int[] out = new int[names.size()];
        for (int i = 0; i < out.length; i++) out[i] = names.get(i).strip().equals("_") ? -1 : d.register(names.get(i));
        return out;
    }

    /**
     * ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 d, [a]: loads 1, 2 or 4 8×8 matrices of
     * 16-bit elements; lanes 8i..8i+7 give the 16-byte-aligned addresses of matrix i's rows. Lane l
     * receives in register i row l/4, columns 2(l%4) and 2(l%4)+1 of matrix i (with .trans: column
     * l/4, rows 2(l%4) and 2(l%4)+1), the lower column (row) in the low half.
     */
    private static Decoded.Op ldmatrix(Decoded d, Insn in) {
        String count = in.has("x1") ? "x1" : in.has("x2") ? "x2" : in.has("x4") ? "x4" : null;
        String what = "ldmatrix." + String.join(".", in.mods());
        if (count == null || !in.has("sync") || !in.has("aligned") || !in.has("m8n8") || !in.has("shared") || !in.has("b16")) {
            throw new PtxException("the interpreter does not implement " + what + ": only .sync.aligned.m8n8.x1/.x2/.x4(.trans).shared.b16");
        }
        in.only("sync", "aligned", "m8n8", count, "trans", "shared");
        boolean trans = in.has("trans");
        int matrices = Integer.parseInt(count.substring(1));
        int[] dst = registers(d, vector(in, 0, matrices));
        MemoryOps.Address address = MemoryOps.address(d, in.operand(1));
        return WarpOps.collective((blk, t, f) -> new long[] {FULL_WARP, address.get(blk, t, f)}, (blk, lanes) -> {
            Machine.Thread[] byLane = new Machine.Thread[32];
            for (Machine.Thread t : lanes) byLane[t.lane] = t;
            int[][][] m = new int[matrices][8][8];
            for (int i = 0; i < matrices; i++) {
                for (int row = 0; row < 8; row++) {
                    Machine.Thread giver = byLane[8 * i + row];
                    long at = giver.warpOperands[1];
                    if (at % 16 != 0) {
                        throw new PtxException(blk.where(giver) + ": " + what + " row address " + at + " of matrix " + i + " is not 16-byte aligned");
                    }
                    MemorySegment bytes = MemoryOps.resolve(blk, giver, giver.frame, "shared", address, at, 16, false, 0);
                    for (int col = 0; col < 8; col++) m[i][row][col] = (int) MemoryOps.read(bytes, 2L * col, ".b16");
                }
            }
            for (Machine.Thread t : lanes) {
                int fixed = t.lane >> 2, pair = 2 * (t.lane & 3);
                for (int i = 0; i < matrices; i++) {
                    int lo = trans ? m[i][pair][fixed] : m[i][fixed][pair], hi = trans ? m[i][pair + 1][fixed] : m[i][fixed][pair + 1];
                    if (dst[i] >= 0) t.frame.r[dst[i]] = (lo | (long) hi << 16) & 0xFFFF_FFFFL;
                }
            }
        });
    }
}
