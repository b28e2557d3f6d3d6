package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.block.MixerState;

import java.util.Arrays;
import java.util.List;

/**
 * One attention layer's keys and values of past positions, for incremental decoding: each
 * forward appends its new keys and values along the seq dim and attends over everything cached.
 * Keys are stored after RoPE, so a cached key never needs rotating again. A stack keeps one per
 * attention block in its {@link dev.symbiont.nn.block.DecodingState}.
 *
 * <p>Appending concatenates, copying the cache each step (O(length) per token), which keeps the
 * cache an ordinary tensor with autograd if recording is on. Use it under
 * {@code GradMode.disabled()} for generation.
 */
public final class KvCache implements MixerState {
    private final int maxLength;
    private Tensor keys, values;

    /** @param maxLength the most positions the cache may hold */
    public KvCache(int maxLength) {
        if (maxLength <= 0) throw new IllegalArgumentException("KvCache: maxLength must be positive, got " + maxLength);
        this.maxLength = maxLength;
    }

    public int maxLength() { return maxLength; }

    /** Positions cached. */
    @Override
    public int length() { return keys == null ? 0 : keys.size(2); }

    @Override
    public void clear() { keys = values = null; }

    /** Cached keys (batch, kvHeads, length, headDim), or null when empty. */
    public Tensor keys() { return keys; }

    /** Cached values (batch, kvHeads, length, headDim), or null when empty. */
    public Tensor values() { return values; }

    /** The full keys and values after an append, each (batch, kvHeads, length, headDim). */
    public record Kv(Tensor keys, Tensor values) {}

    /**
     * Appends new positions and returns all cached ones.
     *
     * @param k (batch, kvHeads, seq, headDim)
     * @param v (batch, kvHeads, seq, headDim)
     * @return keys and values (batch, kvHeads, length + seq, headDim)
     * @throws IllegalStateException when the cache would grow past maxLength
     */
    public Kv append(Tensor k, Tensor v) {
        if (k.dim() != 4 || !Arrays.equals(k.shape(), v.shape())) {
            throw new IllegalArgumentException("KvCache: keys and values must both be (batch, kvHeads, seq, headDim), got "
                    + Arrays.toString(k.shape()) + " and " + Arrays.toString(v.shape()));
        }
        int seq = k.size(2);
        if (length() + seq > maxLength) {
            throw new IllegalStateException("KvCache: holds " + length() + " positions; appending " + seq
                    + " more would exceed maxLength " + maxLength);
        }
        if (keys == null) {
            keys = k;
            values = v;
        } else {
            int[] have = keys.shape(), got = k.shape();
            if (have[0] != got[0] || have[1] != got[1] || have[3] != got[3]) {
                throw new IllegalArgumentException("KvCache: caches (batch, kvHeads, ·, headDim) = " + Arrays.toString(have)
                        + " but got new keys " + Arrays.toString(got));
            }
            keys = Tensor.cat(List.of(keys, k), 2);
            values = Tensor.cat(List.of(values, v), 2);
        }
        return new Kv(keys, values);
    }
}
