package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.nn.block.MixerState;

import java.util.Arrays;
import java.util.List;

/**
 * One attention layer's keys and values of past positions, for incremental decoding: each
 * forward appends its new keys and values along the seq dim and attends over everything cached.
 * Keys are stored after RoPE, so a cached key never needs rotating again. A stack keeps one per
 * attention block in its {@link dev.symbiont.nn.block.DecodingState}.
 *
 * <p>Without autograd recording (generation, under {@code GradMode.disabled()}) the positions
 * are written into buffers of (batch, kvHeads, capacity, headDim) that double as they fill, up
 * to maxLength, and the cache hands out views of their first rows: a token costs a copy of its
 * own keys and values, not of the whole cache. A view handed out earlier sees the rows written
 * after it only past its own length, so it keeps its values. While recording, appending
 * concatenates (a copy of the cache per step), so the cache is an ordinary tensor with autograd.
 */
public final class KvCache implements MixerState {
    /** The first buffer's positions; then each growth doubles. */
    private static final int FIRST_CAPACITY = 64;

    private final int maxLength;
    private Tensor keys, values;
    /** Buffers whose first {@link #length()} rows are keys and values; null while concatenating. */
    private Tensor keyBuffer, valueBuffer;

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
    public void clear() { keys = values = keyBuffer = valueBuffer = null; }

    /** Cached keys (batch, kvHeads, length, headDim), or null when empty. */
    public Tensor keys() { return keys; }

    /** Cached values (batch, kvHeads, length, headDim), or null when empty. */
    public Tensor values() { return values; }

    /** The positions the buffers hold room for; 0 while the cache concatenates. */
    int capacity() { return keyBuffer == null ? 0 : keyBuffer.size(2); }

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
        int seq = k.size(2), length = length();
        if (length + seq > maxLength) {
            throw new IllegalStateException("KvCache: holds " + length + " positions; appending " + seq
                    + " more would exceed maxLength " + maxLength);
        }
        if (keys != null) {
            int[] have = keys.shape(), got = k.shape();
            if (have[0] != got[0] || have[1] != got[1] || have[3] != got[3]) {
                throw new IllegalArgumentException("KvCache: caches (batch, kvHeads, ·, headDim) = " + Arrays.toString(have)
                        + " but got new keys " + Arrays.toString(got));
            }
        }
        boolean recording = GradMode.isEnabled() && (k.requiresGrad() || v.requiresGrad());
        if (recording || (keys != null && (k.dtype() != keys.dtype() || k.backend() != keys.backend()))) {
            keyBuffer = valueBuffer = null;
            keys = keys == null ? k : Tensor.cat(List.of(keys, k), 2);
            values = values == null ? v : Tensor.cat(List.of(values, v), 2);
        } else {
            ensureCapacity(k, length + seq);
            keys = write(keyBuffer, length, k);
            values = write(valueBuffer, length, v);
        }
        return new Kv(keys, values);
    }

    /** Buffers with room for {@code needed} positions, the cached ones copied over when they grow. */
    private void ensureCapacity(Tensor like, int needed) {
        int capacity = capacity();
        if (needed <= capacity) return;
        int grown = Math.min(maxLength, Math.max(needed, Math.max(FIRST_CAPACITY, 2 * capacity)));
        int[] shape = like.shape();
        shape[2] = grown;
        Tensor kb = Creation.full(like.backend(), 0, like.dtype(), shape), vb = Creation.full(like.backend(), 0, like.dtype(), shape);
        if (keys != null) {
            write(kb, 0, keys);
            write(vb, 0, values);
        }
        keyBuffer = kb;
        valueBuffer = vb;
    }

    /** Copies t into buffer's rows [at, at + t's length) along the seq dim; returns the view of rows [0, at + that length). */
    private static Tensor write(Tensor buffer, int at, Tensor t) {
        int seq = t.size(2);
        Tensor rows = buffer.narrow(2, at, seq);
        buffer.backend().copyInto(rows.storage(), rows.layout(), t.storage(), t.layout());
        return buffer.narrow(2, 0, at + seq);
    }
}
