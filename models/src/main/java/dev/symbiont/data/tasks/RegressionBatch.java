package dev.symbiont.data.tasks;

import dev.symbiont.core.Tensor;

/**
 * A batch of {@link RegressionExample}s.
 *
 * @param x (batch, dim) float32
 * @param y (batch, 1) float32
 */
public record RegressionBatch(Tensor x, Tensor y) {}
