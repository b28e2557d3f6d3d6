package dev.symbiont.data;

import dev.symbiont.data.tasks.SequenceExample;

/**
 * Next-token windows over a tokenised text: example i reads {@code length} tokens starting at
 * {@code i·stride} and must predict each following token — input ids[s, s+length), target
 * ids[s+1, s+length+1). Overlapping windows (stride &lt; length) give more examples from a small
 * corpus; shuffle them with the {@link DataLoader}.
 */
public final class TokenWindows implements Dataset<SequenceExample> {
    private final int[] ids;
    private final int length, stride, size;

    public TokenWindows(int[] ids, int length, int stride) {
        if (length <= 0 || stride <= 0) {
            throw new IllegalArgumentException("TokenWindows: length and stride must be positive, got " + length + " and " + stride);
        }
        if (ids.length < length + 1) {
            throw new IllegalArgumentException("TokenWindows: " + ids.length + " tokens cannot fill one window of " + length
                    + " plus its next token");
        }
        this.ids = ids;
        this.length = length;
        this.stride = stride;
        this.size = (ids.length - length - 1) / stride + 1;
    }

    @Override
    public int size() { return size; }

    @Override
    public SequenceExample get(int index) {
        java.util.Objects.checkIndex(index, size);
        int start = index * stride;
        long[] input = new long[length], target = new long[length];
        for (int t = 0; t < length; t++) {
            input[t] = ids[start + t];
            target[t] = ids[start + t + 1];
        }
        return new SequenceExample(input, target);
    }

    @Override
    public String toString() { return "TokenWindows(" + size + " windows of " + length + ", stride " + stride + ")"; }
}
