package dev.symbiont.text;

import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * Turns text into token ids in [0, vocabSize()) and back. {@link #load(Path)} reads any tokenizer
 * written by {@link #save(Path)}, and Hugging Face's ({@link dev.symbiont.text.hf.HfTokenizer}).
 */
public interface Tokenizer {
    /**
     * A tokenizer from a file or a directory: this library's own tokenizer files, a Hugging Face
     * model directory or tokenizer.json, or GPT-2's vocab.json + merges.txt.
     *
     * @see Tokenizers#load(Path)
     */
    static Tokenizer load(Path path) throws IOException {
        return Tokenizers.load(path);
    }

    /**
     * The ids of {@code text}, with the special tokens the tokenizer adds by default (a Llama
     * tokenizer's BOS; none for the tokenizers this library trains, whose ids of "" are empty).
     */
    int[] encode(String text);

    /** The ids of {@code text}, with or without the special tokens (BOS, EOS) the tokenizer adds. */
    default int[] encode(String text, boolean addSpecialTokens) {
        return encode(text);
    }

    /**
     * The text of {@code ids}.
     *
     * @throws IllegalArgumentException naming the first id outside [0, vocabSize())
     */
    String decode(int[] ids);

    /** The text of {@code ids}, leaving special tokens out when {@code skipSpecialTokens}. */
    default String decode(int[] ids, boolean skipSpecialTokens) {
        return decode(ids);
    }

    /** Number of distinct ids. */
    int vocabSize();

    /** The beginning-of-sequence token, when the tokenizer has one. */
    default OptionalInt bosId() { return OptionalInt.empty(); }

    /** The ids that end a sequence (generation stops at any of them); empty when none is known. */
    default int[] eosIds() { return new int[0]; }

    /** The padding token, when the tokenizer has one. */
    default OptionalInt padId() { return OptionalInt.empty(); }

    /** The longest input the model was trained on (tokenizer_config.json's model_max_length), when known. */
    default OptionalInt modelMaxLength() { return OptionalInt.empty(); }

    /** Writes this tokenizer as JSON, atomically. */
    void save(Path file) throws IOException;
}
