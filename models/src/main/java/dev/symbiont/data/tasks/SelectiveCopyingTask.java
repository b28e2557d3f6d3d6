package dev.symbiont.data.tasks;

import dev.symbiont.core.Generator;

/**
 * The selective copying task (Mamba §4.1, Fig. 2): data tokens sit at random positions among
 * noise, so a model must select by content rather than by fixed offset (which an LTI model
 * such as S4 cannot do).
 *
 * <p>Tokens: 0 = noise, 1 = delimiter, 2..vocabSize-1 = data. With K = numTokens and
 * R = regionLength, the sequence has R + K tokens:
 * <pre>
 * input:  R positions: K data tokens at distinct random positions, noise (0) elsewhere | 1 | 0 x (K-1)
 * target: -100 x R                                                                  | d_1 | d_2 .. d_K
 * </pre>
 * Scored: the K positions from the delimiter on, which must output the data tokens in the
 * order they appear in the region.
 */
public final class SelectiveCopyingTask extends SequenceTask {
    public static final int NOISE = 0;
    public static final int DELIMITER = 1;

    private final int numTokens;
    private final int regionLength;

    /**
     * @param vocabSize    at least 3: noise, delimiter and one data token
     * @param numTokens    data tokens to copy, at least 1
     * @param regionLength positions the data tokens are scattered over, at least numTokens
     * @param size         examples in the dataset
     */
    public SelectiveCopyingTask(int vocabSize, int numTokens, int regionLength, int size, long seed) {
        super("selective copying", vocabSize, 3, length(numTokens, regionLength), size, seed);
        this.numTokens = numTokens;
        this.regionLength = regionLength;
    }

    private static int length(int numTokens, int regionLength) {
        if (numTokens <= 0) throw new IllegalArgumentException("selective copying: numTokens must be positive, got " + numTokens);
        if (regionLength < numTokens) {
            throw new IllegalArgumentException("selective copying: regionLength must be >= numTokens (" + numTokens
                    + "), got " + regionLength);
        }
        return Math.toIntExact((long) regionLength + numTokens);
    }

    public int numTokens() { return numTokens; }
    public int regionLength() { return regionLength; }

    /** Position of the delimiter, which is also the first scored position. */
    public int delimiterPosition() { return regionLength; }

    @Override
    protected SequenceExample generate(Generator random) {
        long[] input = new long[sequenceLength()];
        long[] target = unscored();
        boolean[] chosen = TaskSampling.choose(random, regionLength, numTokens);
        input[regionLength] = DELIMITER;
        int k = 0;
        for (int p = 0; p < regionLength; p++) {
            if (!chosen[p]) continue;
            long token = 2 + random.nextInt(vocabSize() - 2);
            input[p] = token;
            target[regionLength + k++] = token;
        }
        return new SequenceExample(input, target);
    }
}
