package dev.symbiont.data.tasks;

import dev.symbiont.core.Generator;

/**
 * Multi-query associative recall (Zoology's MQAR, Arora et al. 2023): a list of key-value pairs,
 * then several keys again, each of which must recall its value. It separates attention (and
 * input-dependent recurrences) from fixed convolutions as the number of pairs grows.
 *
 * <p>Tokens: 0 = blank, keys = [1, 1 + K), values = [1 + K, vocabSize) with
 * K = (vocabSize - 1) / 2. Keys within an example are distinct; values may repeat. With
 * D = numPairs, Q = numQueries and T = sequenceLength:
 * <pre>
 * input:  k_1 v_1 k_2 v_2 .. k_D v_D | query region of T - 2D tokens
 * target: -100 ..                    | v at each queried key, -100 elsewhere
 * </pre>
 * The query region is blank except for Q pairs (k, v) of distinct keys from the list, in random
 * order, each at a random even offset of the region (uniform, unlike Zoology's power-law
 * spacing). As in Zoology the queried value follows its key in the input (teacher forcing), and
 * the scored position is the key's: reading k the model must output v. Scored: Q positions.
 */
public final class AssociativeRecallTask extends SequenceTask {
    public static final int BLANK = 0;

    private final int numPairs;
    private final int numQueries;
    private final int numKeys;

    /**
     * @param vocabSize      at least 2 * numPairs + 1, so every pair can have its own key
     * @param numPairs       key-value pairs in the context, at least 1
     * @param numQueries     keys queried, 1 to numPairs
     * @param sequenceLength total tokens, at least 2 * numPairs + 2 * numQueries
     * @param size           examples in the dataset
     */
    public AssociativeRecallTask(int vocabSize, int numPairs, int numQueries, int sequenceLength, int size, long seed) {
        super("associative recall", vocabSize, minVocab(numPairs, numQueries, sequenceLength), sequenceLength, size, seed);
        this.numPairs = numPairs;
        this.numQueries = numQueries;
        this.numKeys = (vocabSize - 1) / 2;
    }

    private static int minVocab(int numPairs, int numQueries, int sequenceLength) {
        if (numPairs <= 0) throw new IllegalArgumentException("associative recall: numPairs must be positive, got " + numPairs);
        if (numQueries <= 0 || numQueries > numPairs) {
            throw new IllegalArgumentException("associative recall: numQueries must be in [1, numPairs = " + numPairs
                    + "], got " + numQueries);
        }
        long needed = 2L * numPairs + 2L * numQueries;
        if (sequenceLength < needed) {
            throw new IllegalArgumentException("associative recall: sequenceLength must be at least 2 * numPairs + 2 * numQueries = "
                    + needed + ", got " + sequenceLength);
        }
        return Math.toIntExact(2L * numPairs + 1);
    }

    public int numPairs() { return numPairs; }
    public int numQueries() { return numQueries; }

    /** The first key id; keys are [firstKey, firstValue). */
    public int firstKey() { return 1; }

    /** The first value id; values are [firstValue, vocabSize). */
    public int firstValue() { return 1 + numKeys; }

    @Override
    protected SequenceExample generate(Generator random) {
        long[] input = new long[sequenceLength()];
        long[] target = unscored();
        int[] keyOrder = TaskSampling.permutation(random, numKeys); // first numPairs entries: distinct keys
        int numValues = vocabSize() - firstValue();
        long[] keys = new long[numPairs];
        long[] values = new long[numPairs];
        for (int i = 0; i < numPairs; i++) {
            keys[i] = firstKey() + keyOrder[i];
            values[i] = firstValue() + random.nextInt(numValues);
            input[2 * i] = keys[i];
            input[2 * i + 1] = values[i];
        }
        int regionStart = 2 * numPairs;
        int slots = (sequenceLength() - regionStart) / 2;
        boolean[] used = TaskSampling.choose(random, slots, numQueries);
        int[] queried = TaskSampling.permutation(random, numPairs); // first numQueries entries, in query order
        int q = 0;
        for (int s = 0; s < slots; s++) {
            if (!used[s]) continue;
            int pair = queried[q++];
            int at = regionStart + 2 * s;
            input[at] = keys[pair];
            input[at + 1] = values[pair];
            target[at] = values[pair];
        }
        return new SequenceExample(input, target);
    }
}
