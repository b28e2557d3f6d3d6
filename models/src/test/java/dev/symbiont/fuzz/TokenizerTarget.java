package dev.symbiont.fuzz;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.symbiont.text.BpeTokenizer;
import dev.symbiont.text.CharTokenizer;
import dev.symbiont.text.Tokenizer;
import dev.symbiont.text.Tokenizers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Tokenizers#load}, from a corpus of one kind (mutations may turn it into the other). A
 * load is consistent when the tokenizer holds exactly the file's merges or code points, decodes
 * and encodes back, and saves to a file that loads as the same tokenizer.
 */
final class TokenizerTarget implements FuzzTarget {
    // Jackson's defaults, but names of any length, as the loader's parser takes them.
    private static final ObjectMapper PLAIN = JsonMapper.builder(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNameLength(Integer.MAX_VALUE).build()).build()).build();
    private static final String SAMPLE = "the then there, ünïcödé 😀 a\tb\n12345 ";
    private final String corpus;

    private TokenizerTarget(String corpus) {
        this.corpus = corpus;
    }

    static TokenizerTarget bpe() { return new TokenizerTarget("bpe"); }

    static TokenizerTarget chars() { return new TokenizerTarget("char"); }

    @Override public String name() { return corpus; }

    @Override public String suffix() { return ".json"; }

    @Override public Class<? extends Exception> failure() { return IOException.class; }

    @Override
    public Object load(Path file) throws Exception {
        return Tokenizers.load(file);
    }

    @Override
    public void check(Object loaded, Path file, byte[] bytes) throws Exception {
        JsonNode root = PLAIN.readTree(bytes);
        Path saved = file.resolveSibling(file.getFileName() + ".saved.json");
        ((Tokenizer) loaded).save(saved);
        Tokenizer reloaded = Tokenizers.load(saved);
        Files.delete(saved);
        switch (root.get("kind").asText()) {
            case "bpe" -> checkBpe(assertInstanceOf(BpeTokenizer.class, loaded), root.get("merges"), (BpeTokenizer) reloaded);
            case "char" -> checkChar(assertInstanceOf(CharTokenizer.class, loaded), root.get("codePoints"), (CharTokenizer) reloaded);
            default -> throw new AssertionError("loaded a tokenizer of kind " + root.get("kind"));
        }
    }

    private static void checkBpe(BpeTokenizer bpe, JsonNode merges, BpeTokenizer reloaded) {
        assertEquals(BpeTokenizer.BYTE_VOCAB + merges.size(), bpe.vocabSize());
        assertEquals(bpe.vocabSize(), reloaded.vocabSize());
        for (int r = 0; r < merges.size(); r++) {
            int[] m = {merges.get(r).get(0).intValue(), merges.get(r).get(1).intValue()};
            assertArrayEquals(m, bpe.merge(r), "merge " + r);
            assertArrayEquals(m, reloaded.merge(r), "saved merge " + r);
        }
        for (int id = 0; id < Math.min(bpe.vocabSize(), 4096); id++) {
            assertTrue(bpe.tokenBytes(id).length <= BpeTokenizer.MAX_TOKEN_BYTES, "token " + id);
        }
        assertEquals(SAMPLE, bpe.decode(bpe.encode(SAMPLE)));
        assertArrayEquals(bpe.encode(SAMPLE), reloaded.encode(SAMPLE));
    }

    private static void checkChar(CharTokenizer chars, JsonNode codePoints, CharTokenizer reloaded) {
        int[] expected = new int[codePoints.size()];
        for (int i = 0; i < expected.length; i++) expected[i] = codePoints.get(i).intValue();
        assertArrayEquals(expected, chars.codePoints());
        assertArrayEquals(expected, reloaded.codePoints());
        int[] ids = IntStream.range(0, chars.vocabSize()).toArray();
        assertArrayEquals(ids, chars.encode(chars.decode(ids)), "every id decodes and encodes back");
    }
}
