package dev.symbiont.models.gpt;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.*;

/** The penalty is Hugging Face's rule: a seen token's positive logit divided, its negative one multiplied, once. */
class RepetitionPenaltyTest {
    private static BitSet ids(int... ids) {
        BitSet b = new BitSet();
        for (int id : ids) b.set(id);
        return b;
    }

    @Test
    void seen_positive_logits_are_divided_negative_ones_multiplied_and_the_rest_kept() {
        float[] logits = {2.0f, -1.5f, 0.0f, 3.0f, -0.25f, 1.2f};
        RepetitionPenalty.apply(logits, 1.5, ids(0, 1, 2, 4));
        // torch.where(score < 0, score * 1.5, score / 1.5) on the gathered scores of ids 0, 1, 2, 4
        assertArrayEquals(new float[] {2.0f / 1.5f, -1.5f * 1.5f, 0.0f, 3.0f, -0.25f * 1.5f, 1.2f}, logits);
    }

    @Test
    void a_penalty_below_one_favours_seen_tokens_and_one_changes_nothing() {
        float[] logits = {1.0f, -2.0f, 0.5f};
        RepetitionPenalty.apply(logits, 0.5, ids(0, 1));
        assertArrayEquals(new float[] {2.0f, -1.0f, 0.5f}, logits);
        float[] same = {1.0f, -2.0f, 0.5f};
        RepetitionPenalty.apply(same, 1.0, ids(0, 1, 2));
        assertArrayEquals(new float[] {1.0f, -2.0f, 0.5f}, same);
    }

    @Test
    void the_penalty_can_change_the_greedy_choice() {
        float[] logits = {3.0f, 2.5f, -1.0f};
        assertEquals(0, Sampler.argmax(logits));
        RepetitionPenalty.apply(logits, 1.3, ids(0));
        assertEquals(1, Sampler.argmax(logits), "3.0 / 1.3 < 2.5");
    }

    @Test
    void bad_penalties_and_ids_outside_the_logits_are_refused() {
        var e = assertThrows(IllegalArgumentException.class, () -> RepetitionPenalty.apply(new float[3], 0, ids(1)));
        assertTrue(e.getMessage().contains("penalty must be finite and > 0, got 0.0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RepetitionPenalty.apply(new float[3], 1.2, ids(3)));
        assertTrue(e.getMessage().contains("token id 3 is outside the 3 logits"), e.getMessage());
    }
}
