package dev.symbiont.core.backend;

/** Bytes a backend holds now and the most it held since the last peak reset. */
public record MemoryStats(long allocatedBytes, long peakBytes) {
    @Override
    public String toString() {
        return String.format("allocated=%.1f MiB peak=%.1f MiB", allocatedBytes / 1048576.0, peakBytes / 1048576.0);
    }
}
