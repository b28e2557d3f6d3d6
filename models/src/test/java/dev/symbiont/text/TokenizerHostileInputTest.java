package dev.symbiont.text;

import dev.symbiont.fuzz.Allocation;
import dev.symbiont.fuzz.Corpus;
import dev.symbiont.fuzz.Fuzzer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tokenizer files are input from strangers: each file here once loaded wrongly or took the
 * JVM down. A load must either give a consistent tokenizer or throw an IOException naming the
 * file, allocating little more than the file's size either way.
 */
class TokenizerHostileInputTest {
    @TempDir Path dir;

    /** The message of the IOException loading {@code file} throws; it must name the file. */
    private static String rejected(Path file) {
        IOException e = assertThrows(IOException.class, () -> Tokenizers.load(file));
        assertTrue(e.getMessage().startsWith(file + ": "), e.getMessage());
        return e.getMessage();
    }

    private String rejected(String target, String corpusFile) throws IOException {
        return rejected(Corpus.copy(target, corpusFile, dir));
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) assertTrue(message.contains(part), "expected \"" + part + "\" in: " + message);
    }

    private Path bpeFile(String name, StringBuilder merges) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, "{\"kind\":\"bpe\",\"version\":1,\"pretokenizer\":\"gpt2\",\"merges\":[" + merges + "]}");
        return file;
    }

    @Test
    void aMergeChainThatDoublesTheTokenIsRejectedAtTheFirstTokenPastTheLimit() throws Exception {
        Path file = Corpus.copy("bpe", "doubling-merges.json", dir);
        Tokenizers.load(Corpus.copy("bpe", "seed-small.json", dir)); // loads the classes, so they are not counted
        String[] message = new String[1];
        long allocated = Allocation.of(() -> message[0] = rejected(file));
        // 2^11 = 2048 bytes is the first doubling past the limit: merge 10 makes it.
        assertContains(message[0], "merges[10]", "2048 bytes", "limit of " + BpeTokenizer.MAX_TOKEN_BYTES);
        assertTrue(allocated < 1 << 20, allocated + " bytes allocated for a 377-byte file");
    }

    @Test
    void aLongLinearMergeChainIsRejectedWithoutAllocatingItsTokens() throws Exception {
        StringBuilder merges = new StringBuilder("[97,97]");
        for (int r = 1; r < 40_000; r++) merges.append(",[").append(255 + r).append(",97]");
        Path file = bpeFile("linear.json", merges);
        String[] message = new String[1];
        long allocated = Allocation.of(() -> message[0] = rejected(file));
        assertContains(message[0], "merges[1023]", "1025 bytes");
        assertTrue(allocated < Fuzzer.allocationBound(Files.size(file)),
                allocated + " bytes allocated for a " + Files.size(file) + "-byte file");
    }

    @Test
    void fortyThousandShortMergesLoadWithinTheFuzzersAllocationBound() throws Exception {
        StringBuilder merges = new StringBuilder();
        for (int r = 0; r < 40_000; r++) merges.append(r == 0 ? "" : ",").append('[').append(r / 256).append(',').append(r % 256).append(']');
        Path file = bpeFile("short.json", merges);
        BpeTokenizer[] loaded = new BpeTokenizer[1];
        long allocated = Allocation.of(() -> loaded[0] = BpeTokenizer.load(file));
        assertEquals(40_256, loaded[0].vocabSize());
        assertArrayEquals(new byte[] {0, (byte) 255}, loaded[0].tokenBytes(256 + 255));
        assertTrue(allocated < Fuzzer.allocationBound(Files.size(file)),
                allocated + " bytes allocated for a " + Files.size(file) + "-byte file");
    }

    @Test
    void aVersionPastTheIntRangeDoesNotWrapToOne() throws IOException {
        assertContains(rejected("bpe", "version-wraps.json"), "unsupported \"version\" 4294967297");
        assertContains(rejected("char", "version-wraps-negative.json"), "unsupported \"version\" -4294967295");
    }

    @Test
    void contentAfterTheObjectIsRejected() throws IOException {
        assertContains(rejected("bpe", "trailing-content.json"), "not valid JSON at line 1, column 69");
        assertContains(rejected("char", "two-objects.json"), "not valid JSON", "Trailing token");
    }

    @Test
    void aRepeatedKeyIsRejectedRatherThanTheLastOneWinning() throws IOException {
        assertContains(rejected("bpe", "duplicate-kind.json"), "not valid JSON", "Duplicate field 'kind'");
    }

    @Test
    void aFileThatIsNotUtf8IsRejectedNamingTheFile() throws IOException {
        assertContains(rejected("char", "utf32.json"), "utf32.json: ", "UTF-8");
    }

    @Test
    void loneSurrogatesAreNotCodePointsOfAVocabulary() throws IOException {
        assertContains(rejected("char", "lone-surrogates.json"), "codePoints", "entry 0 (U+D800)", "surrogate");
        var e = assertThrows(IllegalArgumentException.class, () -> new CharTokenizer(new int[] {0x61, 0xDC00}));
        assertContains(e.getMessage(), "entry 1", "U+DC00", "surrogate");
    }

    @Test
    void trainingNeverMakesATokenTheLoaderWouldReject() throws IOException {
        String corpus = ("=".repeat(3000) + " ").repeat(4);
        BpeTokenizer trained = BpeTokenizer.train(corpus, 300);
        for (int id = 0; id < trained.vocabSize(); id++) {
            assertTrue(trained.tokenBytes(id).length <= BpeTokenizer.MAX_TOKEN_BYTES, "token " + id);
        }
        Path file = dir.resolve("trained.json");
        trained.save(file);
        assertEquals(corpus, BpeTokenizer.load(file).decode(trained.encode(corpus)));
    }

    @Test
    void longValuesAreCutInMessages() throws IOException {
        Path file = dir.resolve("long.json");
        String kind = "k".repeat(300_000);
        Files.writeString(file, "{\"kind\":\"" + kind + "\",\"version\":1,\"merges\":" + List.of() + "}");
        String message = rejected(file);
        assertContains(message, "kkkk", "300000 chars");
        assertTrue(message.length() < 400 + file.toString().length(), message.length() + " chars");
    }
}
