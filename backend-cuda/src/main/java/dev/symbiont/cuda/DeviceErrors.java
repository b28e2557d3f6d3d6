package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.cuda.driver.Driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Errors a kernel finds in the data (an index out of range) without stopping the stream: each
 * check gets a 64-bit slot on the device, where its kernel records the first bad position p as
 * {@code atomicMax(slot, ~p)} (0 means none, and ~p is larger for a smaller p, so the lowest
 * position wins). The backend looks at the slots when it synchronises or reads to the host, and
 * throws the first failed check's message, as the SPI allows a device backend to.
 */
final class DeviceErrors {
    static final int SLOTS = 256;

    /** A check waiting for the next synchronisation: its slot and the error for a bad position. */
    private record Pending(int slot, LongFunction<RuntimeException> error) {}

    private final CudaBackend backend;
    private final Driver driver;
    private final Driver.Stream stream;
    private final List<Pending> pending = new ArrayList<>();
    private CudaStorage slots;

    DeviceErrors(CudaBackend backend, Driver driver, Driver.Stream stream) {
        this.backend = backend;
        this.driver = driver;
        this.stream = stream;
    }

    /**
     * A slot for one check; {@code error} builds the exception for the first bad position (it may
     * read the device: it runs after the slots are cleared).
     */
    synchronized long slot(LongFunction<RuntimeException> error) {
        if (pending.size() == SLOTS) raise();
        if (slots == null) slots = backend.allocate(DType.INT64, SLOTS);
        int slot = pending.size();
        pending.add(new Pending(slot, error));
        return slots.address(slot);
    }

    /** Throws the first recorded error, if any, and clears every slot. Synchronises when a check is pending. */
    void raise() {
        List<Pending> checks;
        long[] found = new long[SLOTS];
        synchronized (this) {
            if (pending.isEmpty()) return;
            checks = List.copyOf(pending);
            pending.clear();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment host = arena.allocate(8L * checks.size(), 8);
                driver.copyToHost(host, slots.address(), stream);
                driver.synchronize(stream);
                for (int i = 0; i < checks.size(); i++) found[i] = host.getAtIndex(ValueLayout.JAVA_LONG, i);
            }
            driver.zero(slots.address(), 8L * checks.size(), stream);
        }
        for (Pending check : checks) {
            long word = found[check.slot()];
            if (word != 0) throw check.error().apply(~word);
        }
    }
}
