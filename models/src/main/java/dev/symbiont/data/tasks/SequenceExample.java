package dev.symbiont.data.tasks;

import dev.symbiont.core.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One sequence of a synthetic task, scored next-token style: {@code target[t]} is what the
 * model must output after reading {@code input[0..t]}, or {@link #IGNORE} (-100, the default
 * ignore index of {@code crossEntropy}) where position t is not scored.
 *
 * @param input  (seq) token ids
 * @param target (seq) token ids or -100
 */
public record SequenceExample(long[] input, long[] target) {
    /** The target value of a position that is not scored. */
    public static final long IGNORE = -100;

    public SequenceExample {
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(target, "target");
        if (input.length != target.length) {
            throw new IllegalArgumentException("sequence example: input has " + input.length
                    + " tokens but target has " + target.length);
        }
    }

    /** Tokens in the sequence. */
    public int length() { return input.length; }

    /** How many positions are scored (target != -100). */
    public int scoredCount() {
        int n = 0;
        for (long t : target) if (t != IGNORE) n++;
        return n;
    }

    /**
     * Stacks equal-length examples into a batch.
     *
     * @return input: (batch, seq) int64, target: (batch, seq) int64
     */
    public static SequenceBatch collate(List<SequenceExample> examples) {
        if (examples.isEmpty()) throw new IllegalArgumentException("collate: no examples");
        int batch = examples.size();
        int seq = examples.getFirst().length();
        long[] input = new long[batch * seq];
        long[] target = new long[batch * seq];
        for (int b = 0; b < batch; b++) {
            SequenceExample e = examples.get(b);
            if (e.length() != seq) {
                throw new IllegalArgumentException("collate: example " + b + " has " + e.length()
                        + " tokens but example 0 has " + seq);
            }
            System.arraycopy(e.input, 0, input, b * seq, seq);
            System.arraycopy(e.target, 0, target, b * seq, seq);
        }
        return new SequenceBatch(Tensor.fromArray(input, batch, seq), Tensor.fromArray(target, batch, seq));
    }

    // Records compare arrays by identity; examples are values, so compare contents.
    @Override
    public boolean equals(Object o) {
        return o instanceof SequenceExample e && Arrays.equals(input, e.input) && Arrays.equals(target, e.target);
    }

    @Override
    public int hashCode() { return 31 * Arrays.hashCode(input) + Arrays.hashCode(target); }

    @Override
    public String toString() {
        return "SequenceExample[input=" + Arrays.toString(input) + ", target=" + Arrays.toString(target) + "]";
    }
}
