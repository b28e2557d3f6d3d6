package dev.symbiont.data.vision;

import dev.symbiont.core.Tensor;

/**
 * A batch of {@link ImageExample}s; {@code logits.crossEntropy(labels)} scores a classifier.
 *
 * @param images (batch, channels, rows, cols) float32
 * @param labels (batch) int64 class indices
 */
public record ImageBatch(Tensor images, Tensor labels) {}
