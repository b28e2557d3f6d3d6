package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Llama 3's layout: a Split pre-tokenizer with Llama 3's regex, then ByteLevel without its own
 * regex, {@code ignore_merges}, special tokens {@code <|begin_of_text|>} etc., and a template that
 * adds the BOS. The regex is checked piece by piece against expectations worked out from it; the
 * whole tokenizer (GPT-2's vocabulary under Llama 3's layout) against tokenizers.js.
 */
class Llama3StyleTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Llama 3's pre-tokenizer pattern, as its tokenizer.json ships it. */
    static final String LLAMA3_PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
            + "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    static final int BEGIN = 50257, END = 50258, EOT = 50259;

    @TempDir static Path dir;
    private static Path file;

    @BeforeAll
    static void writeALlama3StyleTokenizerOverGpt2sVocabulary() throws IOException {
        file = dir.resolve("llama3/tokenizer.json");
        Files.createDirectories(file.getParent());
        JSON.writeValue(file.toFile(), llama3Layout(NodeReference.gpt2Package()));
    }

    private static List<String> pieces(String text) throws IOException {
        ObjectNode split = JSON.createObjectNode().put("type", "Split").put("behavior", "Isolated").put("invert", false);
        split.putObject("pattern").put("Regex", LLAMA3_PATTERN);
        PreTokenizer pre = PreTokenizers.read(new SourceFile(Path.of("tokenizer.json")), split, "pre_tokenizer");
        List<Piece> out = new ArrayList<>();
        pre.split(new Piece(text, true), out);
        return out.stream().map(Piece::text).toList();
    }

    @Test
    void numbersSplitInGroupsOfThreeFromTheLeft() throws IOException {
        assertEquals(List.of("123", "456", "7"), pieces("1234567"));
        assertEquals(List.of("$", "100", ".", "50", "!!"), pieces("$100.50!!"));
        assertEquals(List.of("abc", "123", "4"), pieces("abc1234"));
    }

    @Test
    void contractionsSplitOffWhateverTheirCase() throws IOException {
        assertEquals(List.of("I", "'m", " don", "'t", " YOU", "'LL", " It", "'S"), pieces("I'm don't YOU'LL It'S"));
    }

    @Test
    void newlinesAndSpacesFormTheirOwnRuns() throws IOException {
        // \s*[\r\n]+ takes a newline run with the spaces before it; \s+(?!\S) leaves the last space to the word.
        assertEquals(List.of("hello", "\n\n", "world"), pieces("hello\n\nworld"));
        assertEquals(List.of("a", "  \n", "b"), pieces("a  \nb"));
        assertEquals(List.of("a", " ", " b"), pieces("a  b"));
        assertEquals(List.of("...\n\n", "x"), pieces("...\n\nx"));
        // A symbol may lead a word: [^\r\n\p{L}\p{N}]?\p{L}+ keeps "(hello" together.
        assertEquals(List.of("(hello", ")"), pieces("(hello)"));
    }

    @Test
    void beginOfTextIsNeverSplitAndTheTemplateAddsIt() throws IOException {
        HfTokenizer t = HfTokenizer.load(file);
        int[] ids = t.encode("<|begin_of_text|>Hi<|eot_id|>");
        assertEquals(BEGIN, ids[0]);
        assertEquals(BEGIN, ids[1]);
        assertEquals(EOT, ids[ids.length - 1]);
        assertArrayEquals(new int[] {BEGIN}, t.encode(""));
        assertArrayEquals(new int[0], t.encode("", false));
        assertArrayEquals(new int[] {BEGIN}, t.prefixIds());
        assertEquals("Hi", t.decode(ids, true));
        assertEquals("<|begin_of_text|><|begin_of_text|>Hi<|eot_id|>", t.decode(ids));
    }

    @Test
    void theWholeTokenizerAgreesWithTokenizersJs() throws IOException {
        HfTokenizer t = HfTokenizer.load(file);
        List<String> texts = new ArrayList<>(ReferenceCorpus.all());
        texts.addAll(List.of("<|begin_of_text|>Hello<|eot_id|>\n\n<|end_of_text|>", "I'M 1234567 DON'T", "x<|begin_of_text|", "  \n\n  x"));
        for (boolean special : new boolean[] {true, false}) {
            JsonNode hf = NodeReference.run(NodeReference.request("tokenizers.js", texts).put("tokenizer", file.toString())
                    .put("addSpecialTokens", special));
            List<int[]> ids = NodeReference.ids(hf);
            for (int i = 0; i < texts.size(); i++) {
                String what = "special tokens " + special + ": " + JSON.writeValueAsString(texts.get(i));
                assertArrayEquals(ids.get(i), t.encode(texts.get(i), special), what);
                assertEquals(hf.get("decoded").get(i).textValue(), t.decode(ids.get(i)), what);
                assertEquals(hf.get("decodedSkippingSpecial").get(i).textValue(), t.decode(ids.get(i), true), what);
            }
        }
    }

    /** GPT-2's vocabulary and merges under Llama 3's tokenizer.json layout. */
    static ObjectNode llama3Layout(Path gpt2Package) throws IOException {
        ObjectNode root = JSON.createObjectNode().put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ArrayNode added = root.putArray("added_tokens");
        String[] specials = {"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"};
        for (int i = 0; i < specials.length; i++) {
            added.addObject().put("id", BEGIN + i).put("content", specials[i]).put("single_word", false).put("lstrip", false)
                    .put("rstrip", false).put("normalized", false).put("special", true);
        }
        root.putNull("normalizer");
        ArrayNode pre = root.putObject("pre_tokenizer").put("type", "Sequence").putArray("pretokenizers");
        ObjectNode split = pre.addObject().put("type", "Split").put("behavior", "Isolated").put("invert", false);
        split.putObject("pattern").put("Regex", LLAMA3_PATTERN);
        pre.addObject().put("type", "ByteLevel").put("add_prefix_space", false).put("trim_offsets", true).put("use_regex", false);
        ArrayNode processors = root.putObject("post_processor").put("type", "Sequence").putArray("processors");
        processors.addObject().put("type", "ByteLevel").put("add_prefix_space", true).put("trim_offsets", false).put("use_regex", true);
        ObjectNode template = processors.addObject().put("type", "TemplateProcessing");
        template.putArray("single").addObject().putObject("SpecialToken").put("id", "<|begin_of_text|>").put("type_id", 0);
        ((ArrayNode) template.get("single")).addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        template.putArray("pair");
        ObjectNode bos = template.putObject("special_tokens").putObject("<|begin_of_text|>").put("id", "<|begin_of_text|>");
        bos.putArray("ids").add(BEGIN);
        bos.putArray("tokens").add("<|begin_of_text|>");
        root.putObject("decoder").put("type", "ByteLevel").put("add_prefix_space", true).put("trim_offsets", true).put("use_regex", true);
        ObjectNode model = root.putObject("model").put("type", "BPE");
        model.putNull("dropout");
        model.putNull("unk_token");
        model.putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", false).put("byte_fallback", false).put("ignore_merges", true);
        model.set("vocab", JSON.readTree(gpt2Package.resolve("encoder.json").toFile()));
        ArrayNode merges = model.putArray("merges");
        List<String> lines = Files.readAllLines(gpt2Package.resolve("vocab.bpe"));
        for (String line : lines.subList(1, lines.size())) if (!line.isEmpty()) merges.addArray().add(line.split(" ")[0]).add(line.split(" ")[1]);
        return root;
    }
}
