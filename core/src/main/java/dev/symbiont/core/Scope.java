package dev.symbiont.core;

/**
 * A try-with-resources scope whose close() cannot throw: what grad mode, backend selection,
 * autocast and exact memory accounting return, e.g. {@code try (var s = GradMode.disabled())}.
 */
@FunctionalInterface
public interface Scope extends AutoCloseable {
    /** Restores what opening the scope changed. */
    @Override
    void close();
}
