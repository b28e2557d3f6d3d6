package dev.symbiont.nn;

import dev.symbiont.core.Generator;

/**
 * A module that draws random numbers in its forward (dropout masks, router jitter) from a
 * generator of its own, so that activation checkpointing can replay the same draws in the
 * recomputation ({@link Checkpoint}) and training checkpoints can save the state.
 */
public interface Stochastic {
    /** The generator this module's forward draws from. */
    Generator generator();
}
