package dev.symbiont.bench.compare;

import com.sun.management.HotSpotDiagnosticMXBean;

import dev.symbiont.core.Scope;

import java.lang.management.ManagementFactory;

/**
 * Keeps the heap from shrinking after the full collections of exact memory counting. Those
 * collections leave little live data, so G1 gives the heap back down to a few MiB, and the next
 * point's timed steps then pay for young collections every step or two while the heap grows
 * again: a sequence length timed right after another's memory count measured up to 5× slower
 * than the next longer one. {@code MaxHeapFreeRatio=100} (a manageable flag, so it can be set
 * while running) tells the collector never to shrink for free space.
 */
final class HeapSizing {
    private static final String FLAG = "MaxHeapFreeRatio";

    private HeapSizing() {}

    /** Sets the flag; returns what restores it, or a no-op where this JVM has no such flag. */
    static Scope keepCommitted() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            String before = hotspot.getVMOption(FLAG).getValue();
            hotspot.setVMOption(FLAG, "100");
            return () -> hotspot.setVMOption(FLAG, before);
        } catch (RuntimeException notHotSpot) {
            return () -> {};
        }
    }
}
