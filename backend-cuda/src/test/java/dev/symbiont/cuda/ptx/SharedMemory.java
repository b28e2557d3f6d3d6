package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One block's shared memory with racecheck's shadow: for every byte, the last thread that wrote
 * it and the barrier interval it wrote in, and the thread(s) that read it in the current interval.
 * Two different threads touching a byte in one interval, one of them writing, is a race.
 * Atomics are exempt: they are the way to share a byte without a barrier. Within a warp, a
 * bar.warp.sync ({@code __syncwarp}) both lanes passed after the first access orders them too.
 */
final class SharedMemory {
    private static final int NONE = -1, MANY = -2;

    final MemorySegment bytes;
    private final int[] writer, reader;
    private final long[] writeInterval, readInterval;
    private final int[] writerLine;
    /** The warp-sync epoch of the warp at a byte's write and its last read; the warp all its readers share, or NONE. */
    private final long[] writeEpoch, readEpoch;
    private final int[] readerWarp;
    /** Per warp of the block: how many bar.warp.sync it has completed. */
    private final long[] warpEpoch;
    private final boolean checkRaces;

    SharedMemory(int size, boolean checkRaces, long[] warpEpoch) {
        this.warpEpoch = warpEpoch;
        this.bytes = MemorySegment.ofArray(new byte[Math.max(size, 1)]);
        this.checkRaces = checkRaces;
        int n = checkRaces ? Math.max(size, 1) : 0;
        writer = new int[n];
        reader = new int[n];
        writerLine = new int[n];
        writeInterval = new long[n];
        readInterval = new long[n];
        writeEpoch = new long[n];
        readEpoch = new long[n];
        readerWarp = new int[n];
        Arrays.fill(writeInterval, -1);
        Arrays.fill(readInterval, -1);
    }

    /** The bytes at a shared-space address, checked against the block's shared size. */
    MemorySegment slice(long address, int size, String what) {
        if (address < 0 || address + size > bytes.byteSize()) {
            throw new PtxException("out-of-bounds shared " + what + " of " + size + " bytes at shared address " + address
                    + " (the block has " + bytes.byteSize() + " bytes of shared memory)");
        }
        return bytes.asSlice(address, size);
    }

    void read(long address, int size, int thread, long interval, int line) {
        if (!checkRaces) return;
        for (int i = (int) address; i < address + size; i++) {
            if (writeInterval[i] == interval && writer[i] != thread && !warpSynced(writer[i] >>> 5, writeEpoch[i], thread)) {
                throw race(i, "read", thread, writer[i], writerLine[i], line);
            }
            if (readInterval[i] != interval) {
                readInterval[i] = interval;
                reader[i] = thread;
                readerWarp[i] = thread >>> 5;
            } else if (reader[i] != thread) {
                reader[i] = MANY;
                if (readerWarp[i] != thread >>> 5) readerWarp[i] = NONE;
            }
            readEpoch[i] = warpEpoch[thread >>> 5];
        }
    }

    void write(long address, int size, int thread, long interval, int line) {
        if (!checkRaces) return;
        for (int i = (int) address; i < address + size; i++) {
            if (writeInterval[i] == interval && writer[i] != thread && !warpSynced(writer[i] >>> 5, writeEpoch[i], thread)) {
                throw race(i, "write", thread, writer[i], writerLine[i], line);
            }
            if (readInterval[i] == interval && reader[i] != thread && reader[i] != NONE
                    && !warpSynced(readerWarp[i], readEpoch[i], thread)) {
                throw new PtxException("shared-memory race at shared address " + i + ": thread " + thread
                        + " writes (line " + line + ") a byte " + (reader[i] == MANY ? "several threads" : "thread " + reader[i])
                        + " read since the last barrier");
            }
            writeInterval[i] = interval;
            writeEpoch[i] = warpEpoch[thread >>> 5];
            writer[i] = thread;
            writerLine[i] = line;
        }
    }

    /** Whether the other access (by warp {@code otherWarp} at its epoch) and this thread's are ordered by a warp sync since. */
    private boolean warpSynced(int otherWarp, long otherEpoch, int thread) {
        return otherWarp == thread >>> 5 && warpEpoch[otherWarp] > otherEpoch;
    }

    private static PtxException race(int address, String access, int thread, int other, int otherLine, int line) {
        return new PtxException("shared-memory race at shared address " + address + ": thread " + thread + " " + access
                + "s (line " + line + ") a byte thread " + other + " wrote (line " + otherLine + ") since the last barrier");
    }
}
