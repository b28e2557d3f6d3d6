package dev.symbiont.nn;

import dev.symbiont.core.Generator;

/**
 * The generator layers draw their initial weights and dropout masks from when none is given —
 * the analogue of torch.manual_seed. Pass an explicit {@link Generator} for independent streams.
 */
public final class Seed {
    private static Generator global = new Generator(0);

    private Seed() {}

    /** Restarts the shared generator at {@code seed}. */
    public static synchronized void manual(long seed) { global = new Generator(seed); }

    /** The shared generator (not thread-safe: build models on one thread, or pass your own). */
    public static synchronized Generator generator() { return global; }
}
