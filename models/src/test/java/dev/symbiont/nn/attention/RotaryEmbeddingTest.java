package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static dev.symbiont.nn.attention.AttentionTesting.assertClose;
import static dev.symbiont.nn.attention.AttentionTesting.randn;
import static org.junit.jupiter.api.Assertions.*;

class RotaryEmbeddingTest {
    private final RotaryEmbedding rope = new RotaryEmbedding(8, 64, 10_000);

    /** q at position m and k at position n, one head of width 8: their dot product. */
    private double score(Tensor q, int m, Tensor k, int n) {
        return rope.apply(q, m).mul(rope.apply(k, n)).sum().item();
    }

    @Test
    void should_make_the_score_depend_only_on_the_position_difference() {
        Tensor q = randn(1, 1, 1, 1, 8), k = randn(2, 1, 1, 1, 8);
        for (int delta : new int[] {0, 1, 5, 17}) {
            double reference = score(q, delta, k, 0);
            for (int shift : new int[] {3, 11, 40}) {
                assertEquals(reference, score(q, delta + shift, k, shift), 1e-4, "delta " + delta + ", shift " + shift);
            }
        }
        assertNotEquals(score(q, 0, k, 0), score(q, 5, k, 0), 1e-3, "the score must depend on the difference");
    }

    @Test
    void should_preserve_the_norm_of_every_head_vector() {
        Tensor x = randn(3, 2, 3, 10, 8);
        Tensor y = rope.apply(x, 7);
        float[] nx = x.square().sum(-1, false).toFloatArray(), ny = y.square().sum(-1, false).toFloatArray();
        assertClose(nx, ny, 1e-4, "squared norms");
    }

    @Test
    void should_rotate_half_pairs_by_position_times_frequency() {
        Tensor x = randn(4, 1, 1, 1, 8);
        float[] v = x.toFloatArray(), y = rope.apply(x, 5).toFloatArray();
        for (int j = 0; j < 4; j++) {
            double angle = 5 * Math.pow(10_000, -2.0 * j / 8);
            assertEquals(v[j] * Math.cos(angle) - v[j + 4] * Math.sin(angle), y[j], 1e-5, "first half " + j);
            assertEquals(v[j + 4] * Math.cos(angle) + v[j] * Math.sin(angle), y[j + 4], 1e-5, "second half " + j);
        }
        assertClose(x, rope.apply(x, 0), 0, "position 0 is the identity");
    }

    @Test
    void should_apply_at_an_offset_as_the_matching_rows_of_a_longer_sequence() {
        Tensor x = randn(5, 2, 2, 9, 8);
        Tensor full = rope.apply(x, 0);
        Tensor tail = rope.apply(x.narrow(2, 4, 5), 4);
        assertClose(full.narrow(2, 4, 5).contiguous(), tail, 0, "rows 4..8");
    }

    @Test
    void should_keep_its_tables_out_of_the_state_dict() {
        assertTrue(rope.stateDict().isEmpty());
    }

    @Test
    void should_reject_positions_past_the_table_and_bad_sizes() {
        var e = assertThrows(IllegalArgumentException.class, () -> rope.apply(Tensor.zeros(1, 1, 4, 8), 61));
        assertTrue(e.getMessage().contains("[61, 65)") && e.getMessage().contains("64"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> rope.apply(Tensor.zeros(1, 4, 6), 0));
        assertTrue(e.getMessage().contains("[1, 4, 6]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RotaryEmbedding(7, 16, 10_000));
    }

    /**
     * Llama 3.1's frequencies as Hugging Face's {@code _compute_llama3_parameters} computes them:
     * where(λ > L/low, θ/factor, θ), then the smoothed value where L/high ≤ λ ≤ L/low.
     */
    private static double[] llama3Frequencies(int dim, double base, double factor, double low, double high, int original) {
        double[] out = new double[dim / 2];
        for (int j = 0; j < out.length; j++) {
            double theta = 1 / Math.pow(base, 2.0 * j / dim), wavelength = 2 * Math.PI / theta;
            double llama = wavelength > original / low ? theta / factor : theta;
            double smooth = (original / wavelength - low) / (high - low);
            double smoothed = (1 - smooth) * llama / factor + smooth * llama;
            boolean medium = !(wavelength < original / high) && !(wavelength > original / low);
            out[j] = medium ? smoothed : llama;
        }
        return out;
    }

    @Test
    void should_rotate_by_llama3_scaled_frequencies() {
        // base and context chosen so the 16 frequencies fall into all three bands
        int dim = 32, original = 64;
        var scaling = new RopeScaling.Llama3(8, 1, 4, original);
        RotaryEmbedding scaled = new RotaryEmbedding(dim, 200, 10_000, scaling);
        double[] expected = llama3Frequencies(dim, 10_000, 8, 1, 4, original);
        int kept = 0, divided = 0, smoothed = 0;
        for (int j = 0; j < dim / 2; j++) {
            double theta = Math.pow(10_000, -2.0 * j / dim);
            if (expected[j] == theta) kept++;
            else if (expected[j] == theta / 8) divided++;
            else smoothed++;
        }
        assertTrue(kept > 0 && divided > 0 && smoothed > 0, kept + " kept, " + divided + " divided, " + smoothed + " smoothed");
        Tensor x = randn(6, 1, 1, 1, dim);
        float[] v = x.toFloatArray(), y = scaled.apply(x, 150).toFloatArray();
        for (int j = 0; j < dim / 2; j++) {
            double angle = 150 * expected[j];
            assertEquals(v[j] * Math.cos(angle) - v[j + dim / 2] * Math.sin(angle), y[j], 1e-5, "first half " + j);
            assertEquals(v[j + dim / 2] * Math.cos(angle) + v[j] * Math.sin(angle), y[j + dim / 2], 1e-5, "second half " + j);
        }
    }

    @Test
    void should_name_the_values_of_an_impossible_llama3_scaling() {
        var e = assertThrows(IllegalArgumentException.class, () -> new RopeScaling.Llama3(8, 4, 1, 8192));
        assertTrue(e.getMessage().contains("lowFreqFactor 4.0, highFreqFactor 1.0"), e.getMessage());
    }

    @Test
    void should_extend_its_table_for_positions_past_the_first_rows() {
        RotaryEmbedding longContext = new RotaryEmbedding(8, 3 * RotaryEmbedding.FIRST_POSITIONS, 10_000);
        Tensor x = randn(7, 1, 1, 2, 8);
        int m = 2 * RotaryEmbedding.FIRST_POSITIONS + 5;
        float[] v = x.toFloatArray(), y = longContext.apply(x, m).toFloatArray();
        for (int row = 0; row < 2; row++) {
            for (int j = 0; j < 4; j++) {
                double angle = (m + row) * Math.pow(10_000, -2.0 * j / 8);
                int at = row * 8 + j;
                assertEquals(v[at] * Math.cos(angle) - v[at + 4] * Math.sin(angle), y[at], 1e-5, "row " + row + ", first half " + j);
                assertEquals(v[at + 4] * Math.cos(angle) + v[at] * Math.sin(angle), y[at + 4], 1e-5, "row " + row + ", second half " + j);
            }
        }
        assertClose(rope.apply(x, 3), longContext.apply(x, 3), 0, "the first rows are the same table");
        var e = assertThrows(IllegalArgumentException.class, () -> longContext.apply(x, 3 * RotaryEmbedding.FIRST_POSITIONS - 1));
        assertTrue(e.getMessage().contains("outside the table of maxSeq = " + 3 * RotaryEmbedding.FIRST_POSITIONS), e.getMessage());
    }
}
