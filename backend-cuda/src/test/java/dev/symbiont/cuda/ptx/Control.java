package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;
import java.util.List;

/** Branches, calls and returns, thread exit, block barriers, and the fences that need no action here. */
final class Control {
    private Control() {}

    static Decoded.Op decode(Decoded d, Insn in) {
        return switch (in.base()) {
            case "bra" -> {
                in.only("uni");
                int[] target = new int[1];
                d.label(in.operand(0), at -> target[0] = at);
                yield (b, t, f) -> f.pc = target[0];
            }
            case "ret" -> { in.only("uni"); yield Control::returnFrom; }
            case "exit" -> { in.only(); yield (b, t, f) -> t.status = Machine.Thread.EXITED; }
            case "call" -> call(d, in);
            case "bar", "barrier" -> barrier(d, in);
            case "membar", "fence", "nanosleep" -> (b, t, f) -> { };
            case "trap" -> (b, t, f) -> { throw new PtxException("trap"); };
            default -> throw new PtxException("the interpreter does not implement instruction " + in.base());
        };
    }

    /** ret: back to the caller with the return values, or the end of the thread in a kernel. */
    static void returnFrom(Block b, Machine.Thread t, Machine.Frame f) {
        if (f.caller == null) {
            t.status = Machine.Thread.EXITED;
            return;
        }
        for (int i = 0; i < f.returnTo.length; i++) {
            MemorySegment.copy(f.params, f.returnFrom[i], f.caller.callArea, f.returnTo[i], f.returnSizes[i]);
        }
        t.localTop = f.localBase;
        t.frame = f.caller;
    }

    /** call(.uni) [(retval),] name, [(args)]: the arguments from the call area into the callee's parameters. */
    private static Decoded.Op call(Decoded d, Insn in) {
        in.only("uni");
        List<String> ops = in.operands();
        int i = 0;
        String retval = ops.get(0).startsWith("(") ? ops.get(i++) : null;
        String name = ops.get(i++).strip();
        String args = i < ops.size() ? ops.get(i) : "()";
        List<String> argNames = Insn.split(args.substring(1, args.length() - 1));
        List<String> retNames = retval == null ? List.of() : Insn.split(retval.substring(1, retval.length() - 1));
        int[] argOffsets = argNames.stream().mapToInt(a -> (int) d.symbol(a).offset()).toArray();
        int[] retOffsets = retNames.stream().mapToInt(a -> (int) d.symbol(a).offset()).toArray();
        Decoded[] callee = new Decoded[1];
        return (b, t, f) -> {
            if (callee[0] == null) callee[0] = d.library.apply(name);
            Decoded c = callee[0];
            if (c.function.params().size() != argOffsets.length || c.function.returns().size() != retOffsets.length) {
                throw new PtxException("call of " + name + " with " + argOffsets.length + " arguments and " + retOffsets.length
                        + " return values; it declares " + c.function.params().size() + " and " + c.function.returns().size());
            }
            MemorySegment params = MemorySegment.ofArray(new byte[Math.max(c.paramAreaSize, 1)]);
            for (int k = 0; k < argOffsets.length; k++) {
                PtxFunction.Param p = c.function.params().get(k);
                MemorySegment.copy(f.callArea, argOffsets[k], params, c.paramSymbols.get(p.name()).offset(), p.size());
            }
            Machine.Frame frame = new Machine.Frame(c, params, f);
            frame.returnTo = retOffsets;
            frame.returnFrom = new int[retOffsets.length];
            frame.returnSizes = new int[retOffsets.length];
            for (int k = 0; k < retOffsets.length; k++) {
                PtxFunction.Param r = c.function.returns().get(k);
                frame.returnFrom[k] = (int) c.paramSymbols.get(r.name()).offset();
                frame.returnSizes[k] = r.size();
            }
            frame.localBase = Decoded.align(t.localTop, 16);
            t.localTop = frame.localBase + c.localSize;
            t.frame = frame;
        };
    }

    /** bar.sync / barrier.sync(.aligned) id: the whole block; a thread count other than the block's is refused. */
    private static Decoded.Op barrier(Decoded d, Insn in) {
        if (in.has("warp")) return WarpOps.syncWarp(d, in);
        in.only("sync", "aligned");
        if (!in.has("sync") && !in.base().equals("barrier")) throw new PtxException(in.base() + "." + String.join(".", in.mods()) + " is not implemented");
        Operands.Src count = in.operands().size() > 1 ? Operands.source(d, in.operand(1), ".u32") : null;
        Decoded.Op[] self = new Decoded.Op[1];
        self[0] = (b, t, f) -> {
            if (count != null && count.get(b, t, f) != b.threadCount()) {
                throw new PtxException("bar.sync with a thread count of " + count.get(b, t, f) + " in a block of " + b.threadCount()
                        + " is not implemented");
            }
            t.status = Machine.Thread.AT_BARRIER;
            t.waitingOp = self[0];
        };
        return self[0];
    }
}
