package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;

/**
 * The state instructions act on. A {@link Block} runs its threads; each {@link Frame} is one
 * function activation of a thread with its own registers (raw 64-bit values; narrower types are
 * kept zero-extended) and program counter.
 */
final class Machine {
    private Machine() {}

    /** One thread of a block. */
    static final class Thread {
        static final int RUNNING = 0, AT_BARRIER = 1, AT_WARP_OP = 2, EXITED = 3;

        final int linear, x, y, z, lane, warp;
        Frame frame;
        int status = RUNNING;
        /** The instruction a waiting thread waits at, and what a warp op needs from it. */
        Decoded.Op waitingOp;
        long[] warpOperands;
        /** Next free byte of this thread's local memory (frames push their depots). */
        int localTop;

        Thread(int linear, int x, int y, int z) {
            this.linear = linear;
            this.x = x;
            this.y = y;
            this.z = z;
            this.lane = linear & 31;
            this.warp = linear >>> 5;
        }
    }

    /** One activation of a function: registers, program counter, parameter areas. */
    static final class Frame {
        final Decoded program;
        final long[] r;
        int pc;
        /** This activation's own parameters (a device function's arguments and return values). */
        final MemorySegment params;
        /** The parameters this activation passes to the functions it calls. */
        final MemorySegment callArea;
        final Frame caller;
        /** Where this activation's local depot starts in the thread's local memory. */
        int localBase;
        /** On return: the caller's call-area offsets, this frame's parameter offsets and sizes of the return values. */
        int[] returnTo, returnFrom, returnSizes;

        Frame(Decoded program, MemorySegment params, Frame caller) {
            this.program = program;
            this.r = new long[program.registerCount];
            this.params = params;
            this.callArea = MemorySegment.ofArray(new byte[Math.max(program.callAreaSize, 1)]);
            this.caller = caller;
        }
    }
}
