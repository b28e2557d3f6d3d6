package dev.symbiont.data.tasks;

import dev.symbiont.core.Generator;

/**
 * The copying task (Mamba §4.1, after Arjovsky et al.): remember a block of tokens across a gap
 * of blanks and write it out after a delimiter. It needs memory of fixed spacing, not selection.
 *
 * <p>Tokens: 0 = blank, 1 = delimiter, 2..vocabSize-1 = data. With L = copyLength and
 * G = lagLength, the sequence has 2L + G tokens:
 * <pre>
 * input:  d_1 .. d_L | 0 x G | 1 | 0 x (L-1)
 * target: -100 ..    | -100  | d_1 | d_2 .. d_L
 * </pre>
 * Scored: the L positions from the delimiter on; the model outputs d_1 on reading the
 * delimiter and d_{k+1} on reading the k-th blank after it (the inputs there are blanks, not
 * teacher-forced data).
 */
public final class CopyingTask extends SequenceTask {
    public static final int BLANK = 0;
    public static final int DELIMITER = 1;

    private final int copyLength;
    private final int lagLength;

    /**
     * @param vocabSize  at least 3: blank, delimiter and one data token
     * @param copyLength tokens to copy, at least 1
     * @param lagLength  blanks between the data and the delimiter, at least 0
     * @param size       examples in the dataset
     */
    public CopyingTask(int vocabSize, int copyLength, int lagLength, int size, long seed) {
        super("copying", vocabSize, 3, length(copyLength, lagLength), size, seed);
        this.copyLength = copyLength;
        this.lagLength = lagLength;
    }

    private static int length(int copyLength, int lagLength) {
        if (copyLength <= 0) throw new IllegalArgumentException("copying: copyLength must be positive, got " + copyLength);
        if (lagLength < 0) throw new IllegalArgumentException("copying: lagLength must be >= 0, got " + lagLength);
        return Math.toIntExact(2L * copyLength + lagLength);
    }

    public int copyLength() { return copyLength; }
    public int lagLength() { return lagLength; }

    /** Position of the delimiter, which is also the first scored position. */
    public int delimiterPosition() { return copyLength + lagLength; }

    @Override
    protected SequenceExample generate(Generator random) {
        long[] input = new long[sequenceLength()]; // zero = blank everywhere not set below
        long[] target = unscored();
        int delimiter = delimiterPosition();
        input[delimiter] = DELIMITER;
        for (int k = 0; k < copyLength; k++) {
            long token = 2 + random.nextInt(vocabSize() - 2);
            input[k] = token;
            target[delimiter + k] = token;
        }
        return new SequenceExample(input, target);
    }
}
