package dev.symbiont.models.gpt;

import java.util.BitSet;

/**
 * The repetition penalty of Keskar et al. 2019 (CTRL, §4.1) as Hugging Face's
 * {@code RepetitionPenaltyLogitsProcessor} applies it: the logit s of every token already in the
 * text (the prompt and what has been generated) becomes
 * <pre>
 *   s / penalty   where s &gt; 0      (also s = 0: it stays 0)
 *   s · penalty   where s &lt; 0
 * </pre>
 * once per token however often it occurred, in float32. With penalty &gt; 1 a seen token is less
 * likely whatever its sign; the rule runs before temperature, top-k and top-p, and in greedy
 * decoding too.
 */
public final class RepetitionPenalty {
    private RepetitionPenalty() {}

    /**
     * Penalises, in place, the logits of the ids set in {@code seen}.
     *
     * @param logits  (vocab) scores of the next token, changed in place
     * @param penalty &gt; 0; 1 leaves them unchanged
     * @param seen    the ids of the text so far; ids at or past logits.length are refused
     * @throws IllegalArgumentException for a penalty that is not a positive finite number or an id outside the logits
     */
    public static void apply(float[] logits, double penalty, BitSet seen) {
        if (!(penalty > 0) || Double.isInfinite(penalty)) {
            throw new IllegalArgumentException("RepetitionPenalty: penalty must be finite and > 0, got " + penalty);
        }
        if (seen.length() > logits.length) {
            throw new IllegalArgumentException("RepetitionPenalty: token id " + (seen.length() - 1) + " is outside the " + logits.length + " logits");
        }
        if (penalty == 1) return;
        float p = (float) penalty;
        for (int id = seen.nextSetBit(0); id >= 0; id = seen.nextSetBit(id + 1)) {
            logits[id] = logits[id] < 0 ? logits[id] * p : logits[id] / p;
        }
    }
}
