package dev.symbiont.cuda.ptx;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One block's shared memory with racecheck's shadow: for every byte, the last thread that wrote
 * it and the barrier interval it wrote in, and the thread(s) that read it in the current interval.
 * Two different threads touching a byte in one interval, one of them writing, is a race.
 * Atomics are exempt: they are the way to share a byte without a barrier.
 */
final class SharedMemory {
    private static final int NONE = -1, MANY = -2;

    final MemorySegment bytes;
    private final int[] writer, reader;
    private final long[] writeInterval, readInterval;
    private final int[] writerLine;
    private final boolean checkRaces;

    SharedMemory(int size, boolean checkRaces) {
        this.bytes = MemorySegment.ofArray(new byte[Math.max(size, 1)]);
        this.checkRaces = checkRaces;
        int n = checkRaces ? Math.max(size, 1) : 0;
        writer = new int[n];
        reader = new int[n];
        writerLine = new int[n];
        writeInterval = new long[n];
        readInterval = new long[n];
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
            if (writeInterval[i] == interval && writer[i] != thread) throw race(i, "read", thread, writer[i], writerLine[i], line);
            if (readInterval[i] != interval) {
                readInterval[i] = interval;
                reader[i] = thread;
            } else if (reader[i] != thread) {
                reader[i] = MANY;
            }
        }
    }

    void write(long address, int size, int thread, long interval, int line) {
        if (!checkRaces) return;
        for (int i = (int) address; i < address + size; i++) {
            if (writeInterval[i] == interval && writer[i] != thread) throw race(i, "write", thread, writer[i], writerLine[i], line);
            if (readInterval[i] == interval && reader[i] != thread && reader[i] != NONE) {
                throw new PtxException("shared-memory race at shared address " + i + ": thread " + thread
                        + " writes (line " + line + ") a byte " + (reader[i] == MANY ? "several threads" : "thread " + reader[i])
                        + " read since the last barrier");
            }
            writeInterval[i] = interval;
            writer[i] = thread;
            writerLine[i] = line;
        }
    }

    private static PtxException race(int address, String access, int thread, int other, int otherLine, int line) {
        return new PtxException("shared-memory race at shared address " + address + ": thread " + thread + " " + access
                + "s (line " + line + ") a byte thread " + other + " wrote (line " + otherLine + ") since the last barrier");
    }
}
