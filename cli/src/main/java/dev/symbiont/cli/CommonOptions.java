package dev.symbiont.cli;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Options every model command takes, and the frame they set up around the command's work. */
final class CommonOptions {
    @Option(names = "--backend", paramLabel = "<device>",
            description = "Backend name or device with an ordinal, e.g. cpu, cuda, cuda:1 (default: the fastest available).")
    String backendName;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--profile", description = "Print the profiler's table of time per op and category at the end.")
    boolean profile;

    Backend backend() { return backendName == null ? Backends.defaultBackend() : Backends.get(backendName); }

    /**
     * Runs {@code work} on the chosen backend, under the profiler when {@code --profile} is given
     * (its table printed afterwards). An I/O failure or running out of memory becomes the command's
     * one-line error.
     */
    void run(String label, Work work) {
        Backend backend = backend();
        try (var scope = Backends.use(backend); ProfilerSession session = profile ? Profiler.start(label) : null) {
            work.run(backend);
            if (session != null) System.out.println(session.report().table());
        } catch (IOException e) {
            throw new UncheckedIOException(Failures.message(e), e);
        } catch (OutOfMemoryError e) { // one line and the bad-input exit code, as every other failure
            throw new IllegalStateException(Failures.outOfMemory("running " + label, e), e);
        }
    }

    /** A command's work on its backend. */
    @FunctionalInterface
    interface Work {
        void run(Backend backend) throws IOException;
    }
}
