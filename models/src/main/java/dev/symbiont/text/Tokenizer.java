package dev.symbiont.text;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Turns text into token ids in [0, vocabSize()) and back. {@link Tokenizers#load(Path)} reads
 * any tokenizer written by {@link #save(Path)}.
 */
public interface Tokenizer {
    /** The ids of {@code text}; empty for the empty string. */
    int[] encode(String text);

    /**
     * The text of {@code ids}.
     *
     * @throws IllegalArgumentException naming the first id outside [0, vocabSize())
     */
    String decode(int[] ids);

    /** Number of distinct ids. */
    int vocabSize();

    /** Writes this tokenizer as JSON, atomically. */
    void save(Path file) throws IOException;
}
