package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;

import java.util.Arrays;
import java.util.List;

/**
 * Keys and values of past positions, one slot per attention layer, for incremental decoding:
 * each forward appends its new keys and values along the seq dim and attends over everything
 * cached. Keys are stored after RoPE, so a cached key never needs rotating again.
 *
 * <p>Appending concatenates, copying the layer's cache each step (O(length) per token), which
 * keeps the cache an ordinary tensor with autograd if recording is on. Use it under
 * {@code GradMode.disabled()} for generation.
 */
public final class KvCache {
    private final int maxLength;
    private final LayerCache[] layers;

    /**
     * @param layers    attention layers (one slot each)
     * @param maxLength the most positions a slot may hold
     */
    public KvCache(int layers, int maxLength) {
        if (layers <= 0 || maxLength <= 0) {
            throw new IllegalArgumentException("KvCache: layers and maxLength must be positive, got " + layers + ", " + maxLength);
        }
        this.maxLength = maxLength;
        this.layers = new LayerCache[layers];
        for (int i = 0; i < layers; i++) this.layers[i] = new LayerCache(i);
    }

    public int layers() { return layers.length; }

    public int maxLength() { return maxLength; }

    /** The slot of layer {@code index}. */
    public LayerCache layer(int index) {
        if (index < 0 || index >= layers.length) {
            throw new IndexOutOfBoundsException("KvCache: layer " + index + " outside [0, " + layers.length + ")");
        }
        return layers[index];
    }

    /** Positions cached so far (that of layer 0: a forward through the stack advances every layer alike). */
    public int length() { return layers[0].length(); }

    /** Empties every slot. */
    public void clear() { for (LayerCache l : layers) l.keys = l.values = null; }

    /** The full keys and values after an append, each (batch, kvHeads, length, headDim). */
    public record Kv(Tensor keys, Tensor values) {}

    /** One layer's cached keys and values, (batch, kvHeads, length, headDim) each, or empty. */
    public final class LayerCache {
        private final int index;
        private Tensor keys, values;

        private LayerCache(int index) { this.index = index; }

        /** Positions cached in this layer. */
        public int length() { return keys == null ? 0 : keys.size(2); }

        /** Cached keys (batch, kvHeads, length, headDim), or null when empty. */
        public Tensor keys() { return keys; }

        /** Cached values (batch, kvHeads, length, headDim), or null when empty. */
        public Tensor values() { return values; }

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
                throw new IllegalArgumentException("KvCache: layer " + index + ": keys and values must both be (batch, kvHeads, seq, headDim), got "
                        + Arrays.toString(k.shape()) + " and " + Arrays.toString(v.shape()));
            }
            int seq = k.size(2);
            if (length() + seq > maxLength) {
                throw new IllegalStateException("KvCache: layer " + index + " holds " + length() + " positions; appending " + seq
                        + " more would exceed maxLength " + maxLength);
            }
            if (keys == null) {
                keys = k;
                values = v;
            } else {
                int[] have = keys.shape(), got = k.shape();
                if (have[0] != got[0] || have[1] != got[1] || have[3] != got[3]) {
                    throw new IllegalArgumentException("KvCache: layer " + index + " caches (batch, kvHeads, ·, headDim) = "
                            + Arrays.toString(have) + " but got new keys " + Arrays.toString(got));
                }
                keys = Tensor.cat(List.of(keys, k), 2);
                values = Tensor.cat(List.of(values, v), 2);
            }
            return new Kv(keys, values);
        }
    }
}
