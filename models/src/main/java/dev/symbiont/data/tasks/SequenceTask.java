package dev.symbiont.data.tasks;

import dev.symbiont.core.Generator;
import dev.symbiont.data.Dataset;
import dev.symbiont.data.Seeds;

import java.util.Objects;

/**
 * A synthetic sequence task: example i is drawn from its own generator seeded by (seed, i), so
 * it is a pure function of (seed, i) and any example can be made in any order on any thread.
 * Every example has the same length.
 */
public abstract class SequenceTask implements Dataset<SequenceExample> {
    private final int vocabSize;
    private final int sequenceLength;
    private final int size;
    private final long seed;

    protected SequenceTask(String task, int vocabSize, int minVocab, int sequenceLength, int size, long seed) {
        if (vocabSize < minVocab) {
            throw new IllegalArgumentException(task + ": vocabSize must be at least " + minVocab + ", got " + vocabSize);
        }
        if (sequenceLength <= 0) {
            throw new IllegalArgumentException(task + ": sequence length must be positive, got " + sequenceLength);
        }
        if (size < 0) throw new IllegalArgumentException(task + ": size must be >= 0, got " + size);
        this.vocabSize = vocabSize;
        this.sequenceLength = sequenceLength;
        this.size = size;
        this.seed = seed;
    }

    /** Token ids lie in [0, vocabSize). */
    public final int vocabSize() { return vocabSize; }

    /** Tokens in every example. */
    public final int sequenceLength() { return sequenceLength; }

    public final long seed() { return seed; }

    @Override
    public final int size() { return size; }

    @Override
    public final SequenceExample get(int index) {
        Objects.checkIndex(index, size);
        return generate(Seeds.generator(seed, index));
    }

    /** Draws one example; everything random must come from {@code random}. */
    protected abstract SequenceExample generate(Generator random);

    /** A target array with no scored position. */
    protected final long[] unscored() {
        long[] target = new long[sequenceLength];
        java.util.Arrays.fill(target, SequenceExample.IGNORE);
        return target;
    }
}
