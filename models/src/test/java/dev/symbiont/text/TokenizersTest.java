package dev.symbiont.text;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenizersTest {
    private static final String TEXT = "Save me and load me again — same ids, 😀 included. the the the";

    @TempDir
    Path dir;

    @Test
    void aSavedCharTokenizerShouldLoadWithIdenticalEncodings() throws IOException {
        var original = CharTokenizer.fit(TEXT);
        Path file = dir.resolve("char.json");
        original.save(file);
        Tokenizer loaded = Tokenizers.load(file);
        assertInstanceOf(CharTokenizer.class, loaded);
        assertEquals(original.vocabSize(), loaded.vocabSize());
        assertArrayEquals(original.encode(TEXT), loaded.encode(TEXT));
        assertArrayEquals(original.encode(TEXT), CharTokenizer.load(file).encode(TEXT));
    }

    @Test
    void aSavedBpeTokenizerShouldLoadWithIdenticalEncodings() throws IOException {
        var original = BpeTokenizer.train(BpeTokenizerTest.syntheticCorpus(40_000, 1) + TEXT, 400);
        Path file = dir.resolve("sub/bpe.json");
        original.save(file);
        Tokenizer loaded = Tokenizers.load(file);
        assertInstanceOf(BpeTokenizer.class, loaded);
        assertEquals(original.vocabSize(), loaded.vocabSize());
        String sample = BpeTokenizerTest.syntheticCorpus(5_000, 2) + TEXT;
        assertArrayEquals(original.encode(sample), loaded.encode(sample));
        assertEquals(sample, loaded.decode(original.encode(sample)));
        assertArrayEquals(original.encode(sample), BpeTokenizer.load(file).encode(sample));
    }

    @Test
    void loadingTheWrongKindShouldSayWhichKindTheFileHolds() throws IOException {
        Path file = dir.resolve("char.json");
        CharTokenizer.fit("abc").save(file);
        var e = assertThrows(IOException.class, () -> BpeTokenizer.load(file));
        assertMentions(e, file, "\"char\"");
    }

    @Test
    void malformedFilesShouldBeReportedNamingTheFileAndTheProblem() throws IOException {
        assertLoadFails("{not json", "not valid JSON");
        assertLoadFails("", "empty");
        assertLoadFails("[1, 2]", "object");
        assertLoadFails("{\"version\": 1}", "\"kind\"");
        assertLoadFails("{\"kind\": \"wordpiece\", \"version\": 1}", "wordpiece");
        assertLoadFails("{\"kind\": \"char\", \"version\": 9, \"codePoints\": []}", "version");
        assertLoadFails("{\"kind\": \"char\", \"version\": 1}", "codePoints");
        assertLoadFails("{\"kind\": \"char\", \"version\": 1, \"codePoints\": [98, 97]}", "ascending");
        assertLoadFails("{\"kind\": \"char\", \"version\": 1, \"codePoints\": [\"a\"]}", "codePoints[0]");
        assertLoadFails("{\"kind\": \"bpe\", \"version\": 1, \"pretokenizer\": \"gpt2\", \"merges\": [[1]]}", "merges[0]");
        assertLoadFails("{\"kind\": \"bpe\", \"version\": 1, \"pretokenizer\": \"gpt2\", \"merges\": [[1, 999]]}", "999");
        assertLoadFails("{\"kind\": \"bpe\", \"version\": 1, \"merges\": []}", "pretokenizer");
    }

    @Test
    void aMissingFileShouldBeAnIOException() {
        assertThrows(IOException.class, () -> Tokenizers.load(dir.resolve("absent.json")));
    }

    private void assertLoadFails(String content, String expected) throws IOException {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, content);
        var e = assertThrows(IOException.class, () -> Tokenizers.load(file), content);
        assertMentions(e, file, expected);
    }

    private static void assertMentions(IOException e, Path file, String expected) {
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }
}
