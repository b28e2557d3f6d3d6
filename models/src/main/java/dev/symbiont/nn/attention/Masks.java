package dev.symbiont.nn.attention;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;

import java.util.Arrays;

/**
 * Additive attention masks: 0 where a query may attend, {@link #MASKED} where it may not. The
 * value is large and finite rather than −∞ so that both attention paths agree: the fused op
 * would zero a row whose every key is −∞, the materialised softmax would give NaN; with a
 * finite value both give the same (uniform) row, and exp(MASKED − max) is exactly 0 otherwise.
 */
public final class Masks {
    /** The additive value of a masked position. */
    public static final float MASKED = -1e9f;

    private Masks() {}

    /**
     * A key-padding mask from 0/1 flags.
     *
     * @param padding (batch, seq) of any dtype: 1 (or non-zero) for a real token, 0 for padding
     * @return (batch, 1, 1, seq) float32, broadcastable to scores (batch, heads, seqQ, seq)
     */
    public static Tensor keyPadding(Tensor padding) {
        if (padding.dim() != 2) {
            throw new IllegalArgumentException("keyPadding: expected (batch, seq) 0/1 flags, got shape " + Arrays.toString(padding.shape()));
        }
        try (var scope = Backends.use(padding.backend())) {
            Tensor keep = padding.to(DType.FLOAT32).ne(Tensor.scalar(0));
            return keep.sub(1.0).mul(-MASKED).unsqueeze(1).unsqueeze(1);
        }
    }

    /**
     * The causal mask, bottom-right aligned: query i sees key j iff j ≤ i + keys − queries (so
     * with a KV cache the last query sees every key).
     *
     * @return (queries, keys) float32 on the current backend
     */
    public static Tensor causal(int queries, int keys) {
        float[] m = new float[queries * keys];
        for (int i = 0; i < queries; i++) {
            for (int j = i + keys - queries + 1; j < keys; j++) if (j >= 0) m[i * keys + j] = MASKED;
        }
        return Tensor.fromArray(m, queries, keys);
    }
}
