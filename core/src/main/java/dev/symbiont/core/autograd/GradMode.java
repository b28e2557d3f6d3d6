package dev.symbiont.core.autograd;

import dev.symbiont.core.Scope;

/**
 * Whether ops record the graph for backward, per thread. Turn it off for a block with
 * {@code try (var scope = GradMode.disabled()) { ... }}.
 */
public final class GradMode {
    private static final ThreadLocal<boolean[]> ENABLED = ThreadLocal.withInitial(() -> new boolean[] {true});

    private GradMode() {}

    public static boolean isEnabled() { return ENABLED.get()[0]; }

    /** Disables recording until the returned scope is closed, then restores the previous mode. */
    public static Scope disabled() { return set(false); }

    /** Enables recording (inside a disabled block) until the scope is closed. */
    public static Scope enabled() { return set(true); }

    private static Scope set(boolean on) {
        boolean[] cell = ENABLED.get();
        boolean previous = cell[0];
        cell[0] = on;
        return () -> cell[0] = previous;
    }
}
