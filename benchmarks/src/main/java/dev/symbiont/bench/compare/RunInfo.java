package dev.symbiont.bench.compare;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.core.backend.Backends;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * What ran one backend's measurements: the machine (CPU model, cores, memory the JVM may use),
 * the backend's device and route, the sizes, and how long it took; {@code complete} is false
 * while the run goes on or after it was interrupted.
 *
 * @param backend     the device measured ("cpu", "cuda:0"), the key of its points
 * @param route       what the backend's provider says about how it runs (a GPU's name and driver), or its name
 * @param cpu         the CPU model, from /proc/cpuinfo (or os.arch where there is none)
 * @param cores       processors the JVM sees
 * @param maxHeapMiB  the JVM's heap limit
 * @param jvm         the Java runtime's version and vendor
 * @param os          operating system and version
 * @param sizes       the size preset ("quick", "full", …)
 * @param started     when the run began (ISO-8601)
 * @param wallSeconds how long it has run
 * @param complete    whether every planned measurement was taken
 */
public record RunInfo(String backend, String route, String cpu, int cores, long maxHeapMiB, String jvm, String os, String sizes,
                      String started, double wallSeconds, boolean complete) {

    /** The machine and backend now, for a run of {@code sizes} starting now. */
    public static RunInfo starting(Backend backend, String sizes) {
        return new RunInfo(backend.device().toString(), route(backend), cpuModel(), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vendor") + ")",
                System.getProperty("os.name") + " " + System.getProperty("os.version"), sizes, Instant.now().toString(), 0, false);
    }

    /** This run after {@code seconds}, finished or not. */
    public RunInfo after(double seconds, boolean done) {
        return new RunInfo(backend, route, cpu, cores, maxHeapMiB, jvm, os, sizes, started, seconds, done);
    }

    /** The first "model name" line of /proc/cpuinfo, or the architecture where the file is missing. */
    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException | SecurityException e) {
            // not Linux: fall through to the architecture
        }
        return System.getProperty("os.arch");
    }

    private static String route(Backend backend) {
        for (BackendProvider provider : Backends.providers()) {
            Availability a = provider.availability();
            if (provider.name().equals(backend.name()) && a.available() && !a.reason().equals(Availability.yes().reason())) return a.reason();
        }
        return backend.name();
    }
}
