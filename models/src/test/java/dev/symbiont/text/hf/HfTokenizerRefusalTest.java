package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.text.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the Hugging Face loader refuses, and that each refusal names the file and the part at
 * fault (JSON path, merge, line) instead of tokenizing some other way.
 */
class HfTokenizerRefusalTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    /** {@link SentencePieceBpeTest#llama2Layout()} with one edit, loaded; the message of the IOException. */
    private String refused(Consumer<ObjectNode> edit) throws IOException {
        ObjectNode root = SentencePieceBpeTest.llama2Layout();
        edit.accept(root);
        Path file = dir.resolve("tokenizer.json");
        JSON.writeValue(file.toFile(), root);
        return refused(file);
    }

    private static String refused(Path path) {
        IOException e = assertThrows(IOException.class, () -> Tokenizers.load(path));
        assertTrue(e.getMessage().startsWith(path.toString()) || e.getMessage().contains(path.getFileName().toString()), e.getMessage());
        return e.getMessage();
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) assertTrue(message.contains(part), "expected \"" + part + "\" in: " + message);
    }

    @Test
    void wordPieceAndUnigramModelsAreRefusedByName() throws IOException {
        assertMentions(refused(root -> ((ObjectNode) root.get("model")).put("type", "WordPiece")),
                "tokenizer.json: model: unsupported model \"WordPiece\"; supported: BPE");
        assertMentions(refused(root -> {
            ObjectNode unigram = root.putObject("model").put("type", "Unigram");
            unigram.putArray("vocab").addArray().add("a").add(-1.5);
        }), "model: unsupported model \"Unigram\"");
    }

    @Test
    void unknownComponentsAreRefusedWithTheirJsonPath() throws IOException {
        assertMentions(refused(root -> ((ArrayNode) root.get("normalizer").get("normalizers")).addObject().put("type", "BertNormalizer")),
                "normalizer.normalizers[2]: unsupported normalizer \"BertNormalizer\"");
        assertMentions(refused(root -> root.putObject("pre_tokenizer").put("type", "Whitespace")),
                "pre_tokenizer: unsupported pre-tokenizer \"Whitespace\"");
        assertMentions(refused(root -> root.putObject("decoder").put("type", "WordPiece")), "decoder: unsupported decoder \"WordPiece\"");
        assertMentions(refused(root -> root.putObject("post_processor").put("type", "RobertaProcessing")),
                "post_processor: unsupported post-processor \"RobertaProcessing\"");
        assertMentions(refused(root -> ((ObjectNode) root.get("model")).put("dropout", 0.1)), "model.dropout", "random");
        assertMentions(refused(root -> ((ObjectNode) root.get("model")).put("continuing_subword_prefix", "##")),
                "model.continuing_subword_prefix");
        assertMentions(refused(root -> root.put("version", "2.0")), "version", "\"2.0\"");
    }

    @Test
    void aRegexJavaCannotMatchTheSameWayIsRefused() throws IOException {
        assertMentions(refused(root -> root.putObject("pre_tokenizer").put("type", "Split").put("behavior", "Isolated")
                .putObject("pattern").put("Regex", "a\\Kb")), "pre_tokenizer.pattern", "\\K");
        assertMentions(refused(root -> root.putObject("pre_tokenizer").put("type", "Split").put("behavior", "Isolated")
                .putObject("pattern").put("Regex", "(?(1)a|b)")), "pre_tokenizer.pattern", "conditional");
        assertMentions(refused(root -> root.putObject("pre_tokenizer").put("type", "Split").put("behavior", "Sideways")
                .putObject("pattern").put("String", " ")), "pre_tokenizer", "\"Sideways\"");
    }

    @Test
    void aMergeNamingATokenOutsideTheVocabularyIsRefusedNamingTheMerge() throws IOException {
        assertMentions(refused(root -> ((ArrayNode) root.get("model").get("merges")).addArray().add("h").add("zz")),
                "model.merges[14]", "\"zz\"", "not in the vocabulary");
        // Both parts exist, but what they make does not.
        assertMentions(refused(root -> ((ArrayNode) root.get("model").get("merges")).add("o w")),
                "model.merges[14]", "\"ow\"", "not in the vocabulary");
        assertMentions(refused(root -> ((ArrayNode) root.get("model").get("merges")).add("a b c")),
                "model.merges[14]", "not two tokens separated by one space");
    }

    @Test
    void inconsistentIdsAreRefused() throws IOException {
        assertMentions(refused(root -> ((ObjectNode) root.get("model").get("vocab")).put("far", 1_000_000)),
                "model.vocab", "1000000", "dense");
        assertMentions(refused(root -> ((ObjectNode) root.get("model").get("vocab")).put("bad", -1)),
                "model.vocab", "\"bad\"", "at least 0");
        assertMentions(refused(root -> ((ObjectNode) ((ArrayNode) root.get("added_tokens")).get(1)).put("id", 7)),
                "added_tokens[1]", "\"<s>\"", "has id 7 here but 1");
    }

    @Test
    void malformedJsonIsRefusedWithItsPosition() throws IOException {
        Path file = dir.resolve("tokenizer.json");
        Files.writeString(file, "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0,}}}");
        assertMentions(refused(file), "not valid JSON at line 1");
        Files.writeString(file, "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"a\": 1}, \"merges\": []}}");
        assertMentions(refused(file), "Duplicate field 'a'");
        Files.writeString(file, "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\", \"vocab\": {}, \"merges\": []}} {}");
        assertMentions(refused(file), "content after the JSON object");
    }

    @Test
    void gpt2FilesWithABadLineAreRefusedNamingTheLine() throws IOException {
        Path d = AddedTokensAndConfigTest.writeTinyGpt2(Files.createDirectories(dir.resolve("gpt2")));
        Files.writeString(d.resolve("merges.txt"), "#version: 0.2\na b\nabc\n");
        assertMentions(refused(d), "merges.txt: line 3", "\"abc\"");
        Files.writeString(d.resolve("merges.txt"), "#version: 0.2\na zz\n");
        assertMentions(refused(d), "merges.txt: line 2", "\"zz\"", "not in the vocabulary");
        Files.writeString(d.resolve("vocab.json"), "{\"a\": \"zero\"}");
        assertMentions(refused(d), "vocab.json", "\"a\"", "integer");
    }

    @Test
    void aDirectoryWithoutATokenizerSaysWhatItLookedFor() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertMentions(refused(empty), "no Hugging Face tokenizer", "tokenizer.json", "vocab.json and merges.txt");
        Files.writeString(empty.resolve("tokenizer.model"), "protobuf");
        assertMentions(refused(empty), "tokenizer.model", "SentencePiece");
    }

    @Test
    void aConfigThatAddsABosItDoesNotNameIsRefused() throws IOException {
        Path d = Files.createDirectories(dir.resolve("config"));
        JSON.writeValue(d.resolve("tokenizer.json").toFile(), SentencePieceBpeTest.llama2Layout());
        Files.writeString(d.resolve("tokenizer_config.json"), "{\"add_bos_token\": true, \"eos_token\": \"</s>\"}");
        assertMentions(refused(d), "tokenizer_config.json: add_bos_token", "no bos_token");
        Files.writeString(d.resolve("tokenizer_config.json"), "{\"eos_token\": \"<|im_end|>\"}");
        assertMentions(refused(d), "tokenizer_config.json: eos_token", "\"<|im_end|>\"", "neither an added token nor in the vocabulary");
    }
}
