package dev.symbiont.core.profile;

import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.MemoryStats;

import java.util.ArrayList;
import java.util.List;

/**
 * One backend's memory when a report was taken: bytes held now and the peak since the
 * backend's last {@code resetPeakMemory()} — the profiler does not reset peaks itself, so a
 * caller who wants the peak of one step resets it before starting the session. The numbers are
 * the backend's {@code MemoryTracker}'s: an upper bound that includes garbage not yet collected,
 * and buffers under its size floor are not counted. Each backend is synchronised before it is
 * read, so an asynchronous backend's queued allocations and frees have happened.
 */
public record BackendMemory(String backend, long currentBytes, long peakBytes) {

    /** Every backend that can run here, in provider priority order (creating one is cheap). */
    static List<BackendMemory> all() {
        List<BackendMemory> out = new ArrayList<>();
        for (BackendProvider p : Backends.providers()) {
            try {
                if (!p.availability().available()) continue;
                var backend = Backends.get(p.name());
                backend.synchronize();
                MemoryStats m = backend.memory();
                out.add(new BackendMemory(p.name(), m.allocatedBytes(), m.peakBytes()));
            } catch (RuntimeException | LinkageError e) {
                // A backend that fails to come up has no memory to report; the others still do.
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return String.format("%s: current %.1f MiB, peak %.1f MiB", backend, currentBytes / 1048576.0, peakBytes / 1048576.0);
    }
}
