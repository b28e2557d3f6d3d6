package dev.symbiont.fuzz;

import dev.symbiont.text.Tokenizer;
import dev.symbiont.text.Tokenizers;
import dev.symbiont.text.hf.HfTokenizer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Tokenizers#load} on Hugging Face tokenizer.json files (SentencePiece-style and byte-level
 * seeds). A load is consistent when the tokenizer encodes a sample to ids in its vocabulary (or
 * refuses a character it cannot express), decodes them without failing, and saves to a file that
 * loads as a tokenizer giving the same ids.
 */
final class HfTokenizerTarget implements FuzzTarget {
    private static final String SAMPLE = "the hello world, ünïcödé 東京 😀 <s>a\tb\n12345 <|eot_id|> ";

    /**
     * Loads every seed once first: the first load initialises the JDK's Unicode normalisation
     * and regex tables (some 16 MB, once per JVM), which is not the file's cost.
     */
    HfTokenizerTarget() throws IOException {
        Path warmUp = Files.createTempDirectory("hf-warm-up");
        try {
            for (String name : Corpus.names(name())) {
                Path seed = Corpus.copy(name(), name, warmUp);
                check(load(seed), seed, Files.readAllBytes(seed));
                Files.delete(seed);
            }
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("a seed of the hf corpus does not load", e);
        } finally {
            Files.deleteIfExists(warmUp);
        }
    }

    @Override public String name() { return "hf"; }

    @Override public String suffix() { return ".json"; }

    @Override public Class<? extends Exception> failure() { return IOException.class; }

    @Override
    public Object load(Path file) throws Exception {
        return Tokenizers.load(file);
    }

    @Override
    public void check(Object loaded, Path file, byte[] bytes) throws Exception {
        if (!(loaded instanceof HfTokenizer tokenizer)) return; // a mutation made it one of this library's own files
        int[] ids;
        try {
            ids = tokenizer.encode(SAMPLE);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("no token for"), e.getMessage());
            return;
        }
        for (int id : ids) assertTrue(id >= 0 && id < tokenizer.vocabSize(), "id " + id + " of " + tokenizer.vocabSize());
        tokenizer.decode(ids);
        tokenizer.decode(ids, true);
        Path saved = file.resolveSibling(file.getFileName() + ".saved.json");
        tokenizer.save(saved);
        Tokenizer reloaded = Tokenizers.load(saved);
        Files.delete(saved);
        assertInstanceOf(HfTokenizer.class, reloaded);
        assertArrayEquals(ids, reloaded.encode(SAMPLE));
    }
}
