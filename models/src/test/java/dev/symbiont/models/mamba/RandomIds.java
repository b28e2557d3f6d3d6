package dev.symbiont.models.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;

/** Token ids drawn uniformly from [0, vocab) for the language-model tests. */
final class RandomIds {
    private RandomIds() {}

    /** @return (batch, seq) int64 ids from {@code seed} */
    static Tensor of(int vocab, int batch, int seq, long seed) {
        Generator g = new Generator(seed);
        long[] v = new long[batch * seq];
        for (int i = 0; i < v.length; i++) v[i] = g.nextInt(vocab);
        return Tensor.fromArray(v, batch, seq);
    }
}
