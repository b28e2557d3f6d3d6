package dev.symbiont.cli;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import picocli.CommandLine.Option;

/** Options every model command takes. */
final class CommonOptions {
    @Option(names = "--backend", description = "Backend name (default: the fastest available).")
    String backendName;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--profile", description = "Print the profiler's table of time per op and category at the end.")
    boolean profile;

    Backend backend() { return backendName == null ? Backends.defaultBackend() : Backends.get(backendName); }
}
