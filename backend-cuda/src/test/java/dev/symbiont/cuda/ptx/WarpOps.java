package dev.symbiont.cuda.ptx;

import java.util.List;

/**
 * Warp collectives: shfl.sync, vote.sync, bar.warp.sync and activemask. A lane that reaches one waits; when
 * every lane of its member mask has arrived, the collective runs for them all. A member lane that
 * has exited, or a source lane outside the mask, is an error rather than an undefined value.
 */
final class WarpOps {
    private WarpOps() {}

    /** A collective: {@code run} records a lane's operands ({@code warpOperands[0]} its member mask); {@code complete} runs them together. */
    interface Collective extends Decoded.Op {
        void complete(Block b, List<Machine.Thread> lanes);
    }

    static Decoded.Op decode(Decoded d, Insn in) {
        return switch (in.base()) {
            case "shfl" -> shuffle(d, in);
            case "vote" -> vote(d, in);
            default -> activeMask(d, in);
        };
    }

    /** A member mask meaning "the lanes that converge here": {@link Block} completes it once no lane of the warp runs. */
    static final long CONVERGED = -1L;

    /**
     * activemask.b32 d: the lanes executing it together. Threads run one at a time here, so it
     * waits like a collective until no lane of its warp can run, and names the lanes waiting at it.
     */
    private static Decoded.Op activeMask(Decoded d, Insn in) {
        int dst = d.register(in.operand(0));
        return collective((b, t, f) -> new long[] {CONVERGED}, (b, lanes) -> {
            long mask = 0;
            for (Machine.Thread t : lanes) mask |= 1L << t.lane;
            for (Machine.Thread t : lanes) t.frame.r[dst] = mask;
        });
    }

    /** bar.warp.sync mask: the lanes of the mask meet. */
    static Decoded.Op syncWarp(Decoded d, Insn in) {
        Operands.Src mask = Operands.source(d, in.operand(0), ".u32");
        return collective((b, t, f) -> new long[] {mask.get(b, t, f)}, (b, lanes) -> b.warpEpoch[lanes.getFirst().warp]++);
    }

    private static Decoded.Op shuffle(Decoded d, Insn in) {
        String mode = in.mods().stream().filter(m -> m.equals("up") || m.equals("down") || m.equals("bfly") || m.equals("idx"))
                .findFirst().orElseThrow(() -> new PtxException("shfl without a mode"));
        if (!in.has("sync")) throw new PtxException("shfl without .sync is not implemented");
        String[] dests = in.operand(0).split("\\|");
        int dst = d.register(dests[0]);
        int pred = dests.length > 1 && !dests[1].strip().equals("_") ? d.register(dests[1]) : -1;
        Operands.Src a = Operands.source(d, in.operand(1), ".b32"), bSrc = Operands.source(d, in.operand(2), ".b32"),
                c = Operands.source(d, in.operand(3), ".b32"), member = Operands.source(d, in.operand(4), ".b32");
        return collective((b, t, f) -> new long[] {member.get(b, t, f), a.get(b, t, f), bSrc.get(b, t, f), c.get(b, t, f)},
                (b, lanes) -> {
                    Machine.Thread[] byLane = new Machine.Thread[32];
                    for (Machine.Thread t : lanes) byLane[t.lane] = t;
                    long[] values = new long[32];
                    boolean[] valid = new boolean[32];
                    for (Machine.Thread t : lanes) {
                        long[] o = t.warpOperands;
                        int lane = t.lane, bval = (int) (o[2] & 31), cval = (int) (o[3] & 31), segMask = (int) (o[3] >>> 8 & 31);
                        int maxLane = (lane & segMask) | (cval & ~segMask), minLane = lane & segMask;
                        int j;
                        boolean p;
                        switch (mode) {
                            case "up" -> { j = lane - bval; p = j >= maxLane; }
                            case "down" -> { j = lane + bval; p = j <= maxLane; }
                            case "bfly" -> { j = lane ^ bval; p = j <= maxLane; }
                            default -> { j = minLane | (bval & ~segMask); p = j <= maxLane; }
                        }
                        if (!p) j = lane;
                        if (j < 0 || j > 31 || byLane[j] == null) {
                            throw new PtxException(b.where(t) + ": shfl.sync." + mode + " reads lane " + j + ", which is not in the member mask 0x"
                                    + Long.toHexString(o[0]));
                        }
                        values[lane] = byLane[j].warpOperands[1] & 0xFFFFFFFFL;
                        valid[lane] = p;
                    }
                    for (Machine.Thread t : lanes) {
                        t.frame.r[dst] = values[t.lane];
                        if (pred >= 0) t.frame.r[pred] = valid[t.lane] ? 1 : 0;
                    }
                });
    }

    private static Decoded.Op vote(Decoded d, Insn in) {
        String mode = in.mods().stream().filter(m -> m.equals("all") || m.equals("any") || m.equals("uni") || m.equals("ballot"))
                .findFirst().orElseThrow(() -> new PtxException("vote without a mode"));
        if (!in.has("sync")) throw new PtxException("vote without .sync is not implemented");
        int dst = d.register(in.operand(0));
        String p = in.operand(1).strip();
        boolean negate = p.startsWith("!");
        Operands.Src pred = Operands.source(d, negate ? p.substring(1) : p, ".pred");
        Operands.Src member = Operands.source(d, in.operand(2), ".b32");
        return collective((b, t, f) -> new long[] {member.get(b, t, f), (pred.get(b, t, f) != 0) != negate ? 1 : 0},
                (b, lanes) -> {
                    long ballot = 0;
                    int count = 0;
                    for (Machine.Thread t : lanes) {
                        if (t.warpOperands[1] != 0) {
                            ballot |= 1L << t.lane;
                            count++;
                        }
                    }
                    long result = switch (mode) {
                        case "all" -> count == lanes.size() ? 1 : 0;
                        case "any" -> count > 0 ? 1 : 0;
                        case "uni" -> count == 0 || count == lanes.size() ? 1 : 0;
                        default -> ballot;
                    };
                    for (Machine.Thread t : lanes) t.frame.r[dst] = result;
                });
    }

    @FunctionalInterface
    interface Record { long[] operands(Block b, Machine.Thread t, Machine.Frame f); }

    @FunctionalInterface
    interface Complete { void run(Block b, List<Machine.Thread> lanes); }

    /** A collective op: every lane records its operands, then {@code complete} runs once for the warp. */
    static Decoded.Op collective(Record record, Complete complete) {
        return new Collective() {
            @Override
            public void run(Block b, Machine.Thread t, Machine.Frame f) {
                t.warpOperands = record.operands(b, t, f);
                t.status = Machine.Thread.AT_WARP_OP;
                t.waitingOp = this;
            }

            @Override
            public void complete(Block b, List<Machine.Thread> lanes) { complete.run(b, lanes); }
        };
    }
}
