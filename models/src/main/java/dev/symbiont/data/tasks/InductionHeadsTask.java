package dev.symbiont.data.tasks;

import dev.symbiont.core.Generator;

/**
 * The induction heads task (Mamba §4.1, Olsson et al. 2022): recall the token that followed a
 * special trigger token the last time it appeared. A two-layer attention model solves it with
 * an induction head; a recurrent model must keep the answer in its state across the gap.
 *
 * <p>Tokens: 0 = trigger, 1..vocabSize-1 = ordinary tokens. With T = sequenceLength:
 * <pre>
 * input:  random ordinary tokens, except input[p] = 0 and input[T-1] = 0, for one random
 *         p in [0, T-3]; a = input[p+1] is ordinary
 * target: -100 everywhere except target[T-1] = a
 * </pre>
 * The trigger appears exactly twice. Scored: one position, the last.
 */
public final class InductionHeadsTask extends SequenceTask {
    public static final int TRIGGER = 0;

    /**
     * @param vocabSize      at least 3: the trigger and two ordinary tokens
     * @param sequenceLength at least 3: trigger, answer, trigger
     * @param size           examples in the dataset
     */
    public InductionHeadsTask(int vocabSize, int sequenceLength, int size, long seed) {
        super("induction heads", vocabSize, 3, checkLength(sequenceLength), size, seed);
    }

    private static int checkLength(int sequenceLength) {
        if (sequenceLength < 3) {
            throw new IllegalArgumentException("induction heads: sequenceLength must be at least 3, got " + sequenceLength);
        }
        return sequenceLength;
    }

    @Override
    protected SequenceExample generate(Generator random) {
        int n = sequenceLength();
        long[] input = new long[n];
        for (int t = 0; t < n; t++) input[t] = 1 + random.nextInt(vocabSize() - 1);
        int p = random.nextInt(n - 2);
        input[p] = TRIGGER;
        input[n - 1] = TRIGGER;
        long[] target = unscored();
        target[n - 1] = input[p + 1];
        return new SequenceExample(input, target);
    }
}
