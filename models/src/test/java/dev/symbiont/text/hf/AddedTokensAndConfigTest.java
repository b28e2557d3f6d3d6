package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.text.CharTokenizer;
import dev.symbiont.text.Tokenizer;
import dev.symbiont.text.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.stream.IntStream;

import static dev.symbiont.text.hf.SentencePieceBpeTest.BOS;
import static dev.symbiont.text.hf.SentencePieceBpeTest.EOS;
import static dev.symbiont.text.hf.SentencePieceBpeTest.id;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Added tokens' flags (lstrip, rstrip, single_word, longest match), tokenizer_config.json and
 * generation_config.json, and how a directory is read. Expectations are worked out by hand from
 * Hugging Face's rules, on {@link SentencePieceBpeTest}'s Metaspace layout (no normalizer, so the
 * raw text is what is matched).
 */
class AddedTokensAndConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int MASK = 284, R = 285, W = 286, EO = 287, EOT = 288;

    @TempDir Path dir;

    /** The Metaspace layout with five more added tokens. */
    private Path tokenizerDir(String name, boolean withTemplate) throws IOException {
        ObjectNode root = SentencePieceBpeTest.metaspaceLayout();
        if (!withTemplate) root.putNull("post_processor");
        ArrayNode added = (ArrayNode) root.get("added_tokens");
        added.addObject().put("id", MASK).put("content", "<mask>").put("lstrip", true).put("normalized", false).put("special", true);
        added.addObject().put("id", R).put("content", "<r>").put("rstrip", true).put("normalized", false).put("special", true);
        added.addObject().put("id", W).put("content", "<w>").put("single_word", true).put("normalized", false).put("special", false);
        added.addObject().put("id", EO).put("content", "<|eo").put("normalized", false).put("special", true);
        added.addObject().put("id", EOT).put("content", "<|eot|>").put("normalized", false).put("special", true);
        Path d = Files.createDirectories(dir.resolve(name));
        JSON.writeValue(d.resolve("tokenizer.json").toFile(), root);
        return d;
    }

    @Test
    void lstripAndRstripTakeTheSpacesBesideTheToken() throws IOException {
        HfTokenizer t = HfTokenizer.load(tokenizerDir("t", true));
        // "<mask>" takes the three spaces before it: "hello" alone is left, at the start, so "▁hello".
        assertArrayEquals(new int[] {id("▁hello"), MASK}, t.encode("hello   <mask>", false));
        // "<r>" takes the spaces after it; "world" does not start the text, so no "▁": w, o+r, l+d.
        assertArrayEquals(new int[] {R, id("w"), id("or"), id("ld")}, t.encode("<r>  world", false));
    }

    @Test
    void aSingleWordTokenMatchesOnlyWhereNoWordCharacterTouchesIt() throws IOException {
        HfTokenizer t = HfTokenizer.load(tokenizerDir("t", true));
        assertFalse(IntStream.of(t.encode("he<w>he", false)).anyMatch(i -> i == W));
        assertTrue(IntStream.of(t.encode("he <w> he", false)).anyMatch(i -> i == W));
    }

    @Test
    void theLongestTokenStartingAtTheFirstMatchWins() throws IOException {
        HfTokenizer t = HfTokenizer.load(tokenizerDir("t", true));
        assertArrayEquals(new int[] {id("▁t"), EOT, EO}, t.encode("t<|eot|><|eo", false));
        assertEquals("t<|eot|><|eo", t.decode(t.encode("t<|eot|><|eo", false)));
        assertEquals("t", t.decode(t.encode("t<|eot|><|eo", false), true));
    }

    @Test
    void tokenizerConfigSetsTheSpecialTokensAndWhetherEncodeAddsThem() throws IOException {
        Path d = tokenizerDir("configured", false);
        Files.writeString(d.resolve("tokenizer_config.json"), """
                {"add_bos_token": true, "add_eos_token": true,
                 "bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": false, "normalized": false},
                 "eos_token": "</s>", "pad_token": null, "unk_token": "<unk>", "model_max_length": 4096}""");
        Files.writeString(d.resolve("generation_config.json"), "{\"bos_token_id\": 1, \"eos_token_id\": [2, " + EOT + "]}");
        Tokenizer t = Tokenizers.load(d);
        assertArrayEquals(new int[] {BOS, id("▁hello"), EOS}, t.encode("hello"));
        assertArrayEquals(new int[] {id("▁hello")}, t.encode("hello", false));
        assertEquals(OptionalInt.of(BOS), t.bosId());
        assertArrayEquals(new int[] {EOS, EOT}, t.eosIds());
        assertEquals(OptionalInt.empty(), t.padId());
        assertEquals(OptionalInt.of(4096), t.modelMaxLength());
    }

    @Test
    void anExplicitAddBosTokenFalseOverridesTheTemplateAndNoLimitIsNone() throws IOException {
        Path d = tokenizerDir("no-bos", true);
        Files.writeString(d.resolve("tokenizer_config.json"),
                "{\"add_bos_token\": false, \"bos_token\": \"<s>\", \"eos_token\": \"</s>\", \"pad_token\": \"<unk>\", \"model_max_length\": 1e30}");
        Tokenizer t = Tokenizers.load(d);
        assertArrayEquals(new int[] {id("▁hello")}, t.encode("hello"));
        assertEquals(OptionalInt.of(0), t.padId());
        assertEquals(OptionalInt.empty(), t.modelMaxLength());
        // Without a config the tokenizer.json template adds the BOS, and no special token is known.
        Tokenizer plain = Tokenizers.load(tokenizerDir("plain", true));
        assertArrayEquals(new int[] {BOS, id("▁hello")}, plain.encode("hello"));
        assertEquals(OptionalInt.empty(), plain.bosId());
        assertArrayEquals(new int[0], plain.eosIds());
    }

    @Test
    void aRunDirectoryOfThisLibraryStillLoadsItsOwnTokenizer() throws IOException {
        Path run = Files.createDirectories(dir.resolve("run"));
        CharTokenizer.fit("abc").save(run.resolve("tokenizer.json"));
        Tokenizer t = Tokenizer.load(run);
        assertInstanceOf(CharTokenizer.class, t);
        assertArrayEquals(new int[] {0, 1, 2}, t.encode("abc"));
        assertInstanceOf(CharTokenizer.class, Tokenizers.load(run.resolve("tokenizer.json")));
    }

    @Test
    void aDirectoryPrefersTokenizerJsonOverVocabAndMerges() throws IOException {
        Path d = tokenizerDir("both", true);
        writeTinyGpt2(d);
        assertEquals(HfTokenizer.load(d.resolve("tokenizer.json")).vocabSize(), Tokenizers.load(d).vocabSize());
        Path gpt2Only = writeTinyGpt2(Files.createDirectories(dir.resolve("gpt2")));
        Tokenizer gpt2 = Tokenizers.load(gpt2Only);
        assertEquals(257, gpt2.vocabSize());
        assertArrayEquals(new int[] {256, 'c'}, gpt2.encode("abc"));
        assertArrayEquals(new int[] {256, 'c'}, Tokenizers.load(gpt2Only.resolve("vocab.json")).encode("abc"));
    }

    /** A GPT-2 style vocab.json (the 256 byte characters and "ab") and merges.txt ("a b") in {@code d}. */
    static Path writeTinyGpt2(Path d) throws IOException {
        ObjectNode vocab = JSON.createObjectNode();
        for (int b = 0; b < 256; b++) vocab.put(String.valueOf(ByteLevel.charOf(b)), b);
        vocab.put("ab", 256);
        JSON.writeValue(d.resolve("vocab.json").toFile(), vocab);
        Files.writeString(d.resolve("merges.txt"), "#version: 0.2\na b\n");
        return d;
    }
}
