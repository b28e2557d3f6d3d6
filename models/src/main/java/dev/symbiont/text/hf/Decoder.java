package dev.symbiont.text.hf;

import java.util.List;

/**
 * A {@code decoder} of tokenizer.json: turns the tokens of the ids into the tokens of the text,
 * which are then concatenated (Hugging Face's {@code decode_chain}).
 */
@FunctionalInterface
interface Decoder {
    List<String> decode(List<String> tokens);
}
