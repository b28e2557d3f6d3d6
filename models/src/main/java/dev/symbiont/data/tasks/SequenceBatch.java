package dev.symbiont.data.tasks;

import dev.symbiont.core.Tensor;

/**
 * A batch of {@link SequenceExample}s; {@code logits.crossEntropy(target)} skips the -100s.
 *
 * @param input  (batch, seq) int64 token ids
 * @param target (batch, seq) int64 token ids, -100 where not scored
 */
public record SequenceBatch(Tensor input, Tensor target) {}
