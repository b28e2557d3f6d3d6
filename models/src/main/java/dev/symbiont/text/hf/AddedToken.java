package dev.symbiont.text.hf;

/**
 * An entry of tokenizer.json's {@code added_tokens}: text that is matched before the model runs
 * and becomes its id whole. {@code special} tokens are left out by {@code decode(ids, true)};
 * a {@code normalized} one is matched in the normalized text (as the normalizer writes it),
 * others in the raw input; {@code lstrip}/{@code rstrip} take the whitespace before/after into
 * the match; a {@code singleWord} one matches only where no word character touches it.
 */
public record AddedToken(int id, String content, boolean special, boolean normalized,
                         boolean lstrip, boolean rstrip, boolean singleWord) {
    /** A special token as tokenizer_config.json names one: matched in the raw text, no stripping. */
    static AddedToken special(int id, String content) {
        return new AddedToken(id, content, true, false, false, false, false);
    }
}
