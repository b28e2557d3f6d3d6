package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.cuda.driver.Driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Errors a kernel finds in the data (an index out of range) without stopping the stream: each
 * check gets two 64-bit slots on the device; its kernel records the first bad position p in the
 * first as {@code atomicMax(slot, ~p)} (0 means none, and ~p is larger for a smaller p, so the
 * lowest position wins) and keeps the bad value in the second. The backend looks at the slots when
 * it synchronises or reads to the host, and throws the first failed check's message, as the SPI
 * allows a device backend to.
 *
 * <p>The slots come in blocks of {@link #SLOTS} words, a new block when the last is full (a
 * training step of many MoE layers takes a few dozen checks per layer), so checks never force a
 * synchronisation before {@link #MAX_BLOCKS} blocks are pending.
 */
final class DeviceErrors {
    static final int SLOTS = 256;
    static final int MAX_BLOCKS = 32;

    /** The error for a bad position and the value the check kept beside it. */
    interface PositionError {
        RuntimeException at(long position, long value);
    }

    /** A check waiting for the next synchronisation: its first slot and its error. */
    private record Pending(int slot, PositionError error) {}

    private final CudaBackend backend;
    private final Driver driver;
    private final Driver.Stream stream;
    private final List<Pending> pending = new ArrayList<>();
    private final List<CudaStorage> blocks = new ArrayList<>();
    private int used;

    DeviceErrors(CudaBackend backend, Driver driver, Driver.Stream stream) {
        this.backend = backend;
        this.driver = driver;
        this.stream = stream;
    }

    /**
     * The two slots of one check: the bad position and the value the check's kernels keep about it,
     * both handed to {@code error} (which runs after the slots are cleared).
     */
    synchronized long slotWithValue(PositionError error) {
        if (used + 2 > SLOTS * MAX_BLOCKS) raise();
        int block = used / SLOTS;
        if (block == blocks.size()) blocks.add(backend.allocate(DType.INT64, SLOTS));
        int slot = used;
        used += 2;
        pending.add(new Pending(slot, error));
        return blocks.get(block).address(slot % SLOTS);
    }

    /** Throws the first recorded error, if any, and clears every slot. Synchronises when a check is pending. */
    void raise() {
        List<Pending> checks;
        long[] found;
        synchronized (this) {
            if (pending.isEmpty()) return;
            checks = List.copyOf(pending);
            found = read(used);
            pending.clear();
            used = 0;
        }
        for (Pending check : checks) {
            long word = found[check.slot()];
            if (word != 0) throw check.error().at(~word, found[check.slot() + 1]);
        }
    }

    /** The first {@code words} slots, read to the host with one synchronisation, and cleared on the device. */
    private long[] read(int words) {
        long[] found = new long[words];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(8L * words, 8);
            for (int start = 0; start < words; start += SLOTS) {
                long bytes = 8L * Math.min(SLOTS, words - start);
                driver.copyToHost(host.asSlice(8L * start, bytes), blocks.get(start / SLOTS).address(), stream);
            }
            driver.synchronize(stream);
            for (int i = 0; i < words; i++) found[i] = host.getAtIndex(ValueLayout.JAVA_LONG, i);
        }
        for (int start = 0; start < words; start += SLOTS) {
            driver.zero(blocks.get(start / SLOTS).address(), 8L * Math.min(SLOTS, words - start), stream);
        }
        return found;
    }
}
