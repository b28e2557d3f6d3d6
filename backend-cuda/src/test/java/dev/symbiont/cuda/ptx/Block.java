package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Dim3;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One thread block of a launch, and its scheduler. Each thread runs until it reaches a barrier,
 * a warp collective or its end; then warp collectives whose lanes have all arrived execute, and
 * a barrier opens once every live thread waits at it. Threads that exited count as arrived, as
 * on the hardware; live threads waiting at different barriers are barrier divergence. Blocks
 * run one after another, so atomics are atomic without locks.
 */
final class Block {
    /** Generic-address windows of the shared and local state spaces. */
    static final long SHARED_WINDOW = 0x7F00_0000_0000L, LOCAL_WINDOW = 0x7E00_0000_0000L, WINDOW_SIZE = 1L << 32;
    static final int LOCAL_BYTES_PER_THREAD = 16 * 1024;

    final Launch launch;
    final Dim3 blockDim, gridDim;
    final int ctaX, ctaY, ctaZ;
    final int dynamicShared;
    final SharedMemory shared;
    final DeviceMemory global;
    final Machine.Thread[] threads;
    /** bar.warp.sync completions per warp: they order shared accesses within a warp, see {@link SharedMemory}. */
    final long[] warpEpoch;
    private final MemorySegment[] local;
    long executed;
    /** The barrier interval; shared accesses in one interval by two threads may race. */
    long interval;

    Block(Launch launch, int ctaX, int ctaY, int ctaZ) {
        this.launch = launch;
        this.blockDim = launch.block();
        this.gridDim = launch.grid();
        this.ctaX = ctaX;
        this.ctaY = ctaY;
        this.ctaZ = ctaZ;
        this.dynamicShared = launch.dynamicShared();
        this.global = launch.memory();
        int n = (int) blockDim.count();
        this.warpEpoch = new long[(n + 31) / 32];
        this.shared = new SharedMemory(launch.staticShared() + dynamicShared, true, warpEpoch);
        threads = new Machine.Thread[n];
        local = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            int x = i % blockDim.x(), y = i / blockDim.x() % blockDim.y(), z = i / (blockDim.x() * blockDim.y());
            Machine.Thread t = new Machine.Thread(i, x, y, z);
            t.frame = new Machine.Frame(launch.kernel(), launch.params(), null);
            t.localTop = launch.kernel().localSize;
            threads[i] = t;
        }
    }

    int threadCount() { return threads.length; }

    /** The address a symbol names in its space: shared and module variables; locals and params are frame-relative. */
    static long symbolAddress(Decoded.Symbol s) {
        return s.offset();
    }

    /** This thread's local memory. */
    MemorySegment local(Machine.Thread t, long address, int size, String what) {
        if (local[t.linear] == null) local[t.linear] = MemorySegment.ofArray(new byte[LOCAL_BYTES_PER_THREAD]);
        if (address < 0 || address + size > LOCAL_BYTES_PER_THREAD) {
            throw new PtxException("out-of-bounds local " + what + " of " + size + " bytes at local address " + address);
        }
        return local[t.linear].asSlice(address, size);
    }

    void run() {
        while (true) {
            for (Machine.Thread t : threads) if (t.status == Machine.Thread.RUNNING) step(t);
            if (resolveWarpOps()) continue;
            List<Machine.Thread> waiting = new ArrayList<>();
            int live = 0;
            for (Machine.Thread t : threads) {
                if (t.status == Machine.Thread.EXITED) continue;
                live++;
                if (t.status == Machine.Thread.AT_BARRIER) waiting.add(t);
            }
            if (live == 0) return;
            if (waiting.size() == live) {
                Decoded.Op first = waiting.getFirst().waitingOp;
                for (Machine.Thread t : waiting) {
                    if (t.waitingOp != first) {
                        throw new PtxException(where(t) + ": barrier divergence: threads of the block wait at different barriers (lines "
                                + lineOf(waiting.getFirst()) + " and " + lineOf(t) + ")");
                    }
                }
                interval++;
                for (Machine.Thread t : waiting) t.status = Machine.Thread.RUNNING;
                continue;
            }
            Machine.Thread stuck = null;
            for (Machine.Thread t : threads) if (t.status == Machine.Thread.AT_WARP_OP) { stuck = t; break; }
            Machine.Thread any = stuck != null ? stuck : waiting.getFirst();
            throw new PtxException(where(any) + ": no thread can proceed: " + waiting.size() + " of " + live
                    + " live threads wait at a barrier" + (stuck != null ? " and a warp collective's lanes have not all arrived (line "
                    + lineOf(stuck) + ")" : ""));
        }
    }

    private void step(Machine.Thread t) {
        Machine.Frame f = t.frame;
        Decoded.Op[] code = f.program.code;
        int pc = 0;
        try {
            while (t.status == Machine.Thread.RUNNING) {
                if (t.frame != f) {
                    f = t.frame;
                    code = f.program.code;
                }
                pc = f.pc++;
                executed++;
                code[pc].run(this, t, f);
            }
        } catch (PtxException e) {
            throw new PtxException(f.program.name + ", line " + f.program.lines.get(pc) + " (" + f.program.texts.get(pc) + "), "
                    + blockAndThread(t) + ": " + e.getMessage());
        } catch (RuntimeException e) {
            throw new PtxException(f.program.name + ", line " + f.program.lines.get(pc) + " (" + f.program.texts.get(pc) + "), "
                    + blockAndThread(t) + ": " + e);
        } finally {
            launch.count(executed);
            executed = 0;
        }
    }

    /** Runs the warp collectives whose lanes have all arrived; true when one ran. */
    private boolean resolveWarpOps() {
        boolean ran = false;
        Map<Decoded.Op, List<Machine.Thread>> byOp = new IdentityHashMap<>();
        for (Machine.Thread t : threads) {
            if (t.status == Machine.Thread.AT_WARP_OP) byOp.computeIfAbsent(t.waitingOp, k -> new ArrayList<>()).add(t);
        }
        for (Map.Entry<Decoded.Op, List<Machine.Thread>> e : byOp.entrySet()) {
            Map<Integer, List<Machine.Thread>> byWarp = new java.util.TreeMap<>();
            for (Machine.Thread t : e.getValue()) byWarp.computeIfAbsent(t.warp, k -> new ArrayList<>()).add(t);
            for (List<Machine.Thread> lanes : byWarp.values()) {
                long arrived = 0;
                for (Machine.Thread t : lanes) arrived |= 1L << t.lane;
                long mask = lanes.getFirst().warpOperands[0] == WarpOps.CONVERGED ? arrived : lanes.getFirst().warpOperands[0] & 0xFFFFFFFFL;
                if ((arrived & mask) != mask) {
                    for (int lane = 0; lane < 32; lane++) {
                        int index = lanes.getFirst().warp * 32 + lane;
                        if ((mask >>> lane & 1) != 0 && (index >= threads.length || threads[index].status == Machine.Thread.EXITED)) {
                            throw new PtxException(where(lanes.getFirst()) + ": warp collective at line " + lineOf(lanes.getFirst())
                                    + " names lane " + lane + " in its member mask 0x" + Long.toHexString(mask) + ", which has exited");
                        }
                    }
                    continue;
                }
                ((WarpOps.Collective) e.getKey()).complete(this, lanes);
                for (Machine.Thread t : lanes) t.status = Machine.Thread.RUNNING;
                ran = true;
            }
        }
        return ran;
    }

    private int lineOf(Machine.Thread t) { return t.frame.program.lines.get(t.frame.pc - 1); }

    String where(Machine.Thread t) { return launch.kernel().name + ", " + blockAndThread(t); }

    private String blockAndThread(Machine.Thread t) {
        return "block (" + ctaX + ", " + ctaY + ", " + ctaZ + "), thread (" + t.x + ", " + t.y + ", " + t.z + ")";
    }
}
