package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * SentencePiece-style BPE (Llama 2, Mistral) on a small hand-built tokenizer.json: 3 special
 * tokens, the 256 byte tokens {@code <0x00>}..{@code <0xFF>}, a few letters and 14 merges. Two
 * layouts: Llama 2's (normalizer Prepend "▁" + Replace " " → "▁", no pre-tokenizer, decoder
 * Replace/ByteFallback/Fuse/Strip) and the newer one (Metaspace pre-tokenizer with prepend scheme
 * "first" and a Metaspace decoder). Expected ids are worked out by hand from Hugging Face's
 * algorithm (comments below); a seeded corpus is also compared with tokenizers.js.
 */
class SentencePieceBpeTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int UNK = 0, BOS = 1, EOS = 2, BYTE0 = 3;
    /** Single characters, then what the merges make, in the order the merges are listed. */
    static final String[] PIECES = {"▁", "t", "h", "e", "l", "o", "w", "r", "d", "東", "京",
        "▁t", "he", "▁the", "ll", "hell", "hello", "▁hello", "▁w", "or", "▁wor", "ld", "▁world", "東京", "▁東京"};
    static final String[] MERGES = {"▁ t", "h e", "▁t he", "l l", "he ll", "hell o", "▁ hello", "▁ w", "o r",
        "▁w or", "l d", "▁wor ld", "東 京", "▁ 東京"};

    @TempDir Path dir;

    /** The id of a piece of {@link #PIECES}: after the 3 specials and 256 bytes. */
    static int id(String piece) {
        for (int i = 0; i < PIECES.length; i++) if (PIECES[i].equals(piece)) return BYTE0 + 256 + i;
        throw new IllegalArgumentException(piece);
    }

    static int byteId(int b) { return BYTE0 + b; }

    @Test
    void llama2sLayoutEncodesWordsSpacesAndCjkAsWorkedOutByHand() throws IOException {
        HfTokenizer t = HfTokenizer.load(write("llama2", llama2Layout()));
        // "hello world" → normalized "▁hello▁world", one word. Merges in rank order: h+e, l+l,
        // he+ll, hell+o, ▁+hello, ▁+w, o+r, ▁w+or, l+d, ▁wor+ld → ▁hello ▁world; the template adds <s>.
        assertArrayEquals(new int[] {BOS, id("▁hello"), id("▁world")}, t.encode("hello world"));
        assertArrayEquals(new int[] {id("▁hello"), id("▁world")}, t.encode("hello world", false));
        // " hello " → "▁▁hello▁": the extra ▁ before and after stay single tokens.
        assertArrayEquals(new int[] {id("▁"), id("▁hello"), id("▁")}, t.encode(" hello ", false));
        // "東京" → "▁東京": 東+京 (rank 12), then ▁+東京 (rank 13).
        assertArrayEquals(new int[] {id("▁東京")}, t.encode("東京", false));
        assertArrayEquals(new int[0], t.encode("", false));
        assertArrayEquals(new int[] {BOS}, t.encode(""));
    }

    @Test
    void unknownCharactersFallBackToTheirUtf8Bytes() throws IOException {
        HfTokenizer t = HfTokenizer.load(write("llama2", llama2Layout()));
        // "hi 😀" → "▁hi▁😀": 'i' is not a token, so <0x69>; 😀 is F0 9F 98 80.
        assertArrayEquals(new int[] {id("▁"), id("h"), byteId(0x69), id("▁"), byteId(0xF0), byteId(0x9F), byteId(0x98), byteId(0x80)},
                t.encode("hi 😀", false));
        assertEquals("hi 😀", t.decode(t.encode("hi 😀"), true));
        // A byte run that is not UTF-8 decodes to one U+FFFD per byte, as ByteFallback does.
        assertEquals("h\uFFFD\uFFFD", t.decode(new int[] {id("h"), byteId(0xF0), byteId(0x9F)}));
    }

    @Test
    void decodingDropsTheLeadingMarkOnceAndKeepsSpecialTokensUnlessAsked() throws IOException {
        HfTokenizer t = HfTokenizer.load(write("llama2", llama2Layout()));
        int[] ids = t.encode("hello world");
        // Tokens <s> ▁hello ▁world → "<s>", " hello", " world" → fused "<s> hello world"; Strip
        // removes a leading space only, and "<s>" comes first.
        assertEquals("<s> hello world", t.decode(ids));
        assertEquals("hello world", t.decode(ids, true));
        // Leading and trailing spaces survive: "▁▁hello▁" → "  hello " → strip one → " hello ".
        assertEquals(" hello ", t.decode(t.encode(" hello "), true));
    }

    @Test
    void llama2sLayoutPrependsAMarkAfterASpecialTokenAndTheMetaspaceLayoutDoesNot() throws IOException {
        HfTokenizer legacy = HfTokenizer.load(write("llama2", llama2Layout()));
        HfTokenizer metaspace = HfTokenizer.load(write("metaspace", metaspaceLayout()));
        // The normalizer runs on each stretch between added tokens, so Prepend marks "hello" too.
        assertArrayEquals(new int[] {BOS, id("▁hello")}, legacy.encode("<s>hello", false));
        // Metaspace's "first" scheme marks only the stretch at the start of the text.
        assertArrayEquals(new int[] {BOS, id("hello")}, metaspace.encode("<s>hello", false));
        assertArrayEquals(new int[] {id("▁hello"), id("▁world")}, metaspace.encode("hello world", false));
        assertEquals("hello world", metaspace.decode(metaspace.encode("hello world"), true));
        assertEquals("<s> hello world", metaspace.decode(metaspace.encode("hello world")));
    }

    @Test
    void bothLayoutsAgreeWithTokenizersJsOnACorpus() throws IOException {
        List<String> texts = new ArrayList<>(ReferenceCorpus.all());
        texts.addAll(List.of("<s>hello</s> world<unk>", "hello  world   ", "   ", "the hello", "▁hello ▁"));
        for (String layout : List.of("llama2", "metaspace")) {
            Path file = write(layout, layout.equals("llama2") ? llama2Layout() : metaspaceLayout());
            HfTokenizer t = HfTokenizer.load(file);
            for (boolean special : new boolean[] {true, false}) {
                JsonNode hf = NodeReference.run(NodeReference.request("tokenizers.js", texts)
                        .put("tokenizer", file.toString()).put("addSpecialTokens", special));
                List<int[]> ids = NodeReference.ids(hf);
                for (int i = 0; i < texts.size(); i++) {
                    String what = layout + ", special tokens " + special + ": " + JSON.writeValueAsString(texts.get(i));
                    assertArrayEquals(ids.get(i), t.encode(texts.get(i), special), what);
                    assertEquals(hf.get("decoded").get(i).textValue(), t.decode(ids.get(i)), what);
                    assertEquals(hf.get("decodedSkippingSpecial").get(i).textValue(), t.decode(ids.get(i), true), what);
                }
            }
        }
    }

    private Path write(String name, ObjectNode root) throws IOException {
        Path file = dir.resolve(name).resolve("tokenizer.json");
        Files.createDirectories(file.getParent());
        JSON.writeValue(file.toFile(), root);
        return file;
    }

    /** Llama 2's tokenizer.json layout around {@link #model()}. */
    static ObjectNode llama2Layout() {
        ObjectNode root = envelope();
        ArrayNode normalizers = root.putObject("normalizer").put("type", "Sequence").putArray("normalizers");
        normalizers.addObject().put("type", "Prepend").put("prepend", "▁");
        normalizers.addObject().put("type", "Replace").put("content", "▁").putObject("pattern").put("String", " ");
        root.putNull("pre_tokenizer");
        ArrayNode decoders = root.putObject("decoder").put("type", "Sequence").putArray("decoders");
        decoders.addObject().put("type", "Replace").put("content", " ").putObject("pattern").put("String", "▁");
        decoders.addObject().put("type", "ByteFallback");
        decoders.addObject().put("type", "Fuse");
        decoders.addObject().put("type", "Strip").put("content", " ").put("start", 1).put("stop", 0);
        return root;
    }

    /** The Metaspace layout (prepend scheme "first", no split) around {@link #model()}. */
    static ObjectNode metaspaceLayout() {
        ObjectNode root = envelope();
        root.putNull("normalizer");
        root.putObject("pre_tokenizer").put("type", "Metaspace").put("replacement", "▁").put("prepend_scheme", "first").put("split", false);
        ArrayNode decoders = root.putObject("decoder").put("type", "Sequence").putArray("decoders");
        decoders.addObject().put("type", "Metaspace").put("replacement", "▁").put("prepend_scheme", "first").put("split", false);
        decoders.addObject().put("type", "ByteFallback");
        decoders.addObject().put("type", "Fuse");
        return root;
    }

    private static ObjectNode envelope() {
        ObjectNode root = JSON.createObjectNode().put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ArrayNode added = root.putArray("added_tokens");
        String[] specials = {"<unk>", "<s>", "</s>"};
        for (int i = 0; i < specials.length; i++) {
            added.addObject().put("id", i).put("content", specials[i]).put("single_word", false).put("lstrip", false)
                    .put("rstrip", false).put("normalized", false).put("special", true);
        }
        ObjectNode post = root.putObject("post_processor").put("type", "TemplateProcessing");
        post.putArray("single").addObject().putObject("SpecialToken").put("id", "<s>").put("type_id", 0);
        ((ArrayNode) post.get("single")).addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        post.putArray("pair");
        ObjectNode bos = post.putObject("special_tokens").putObject("<s>").put("id", "<s>");
        bos.putArray("ids").add(BOS);
        bos.putArray("tokens").add("<s>");
        root.set("model", model());
        return root;
    }

    /** BPE with byte fallback: specials, the 256 byte tokens, {@link #PIECES}, {@link #MERGES}. */
    static ObjectNode model() {
        ObjectNode model = JSON.createObjectNode().put("type", "BPE");
        model.putNull("dropout");
        model.put("unk_token", "<unk>");
        model.putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", true).put("byte_fallback", true).put("ignore_merges", false);
        ObjectNode vocab = model.putObject("vocab").put("<unk>", UNK).put("<s>", BOS).put("</s>", EOS);
        for (int b = 0; b < 256; b++) vocab.put(String.format("<0x%02X>", b), byteId(b));
        for (String piece : PIECES) vocab.put(piece, id(piece));
        ArrayNode merges = model.putArray("merges");
        for (String m : MERGES) merges.addArray().add(m.split(" ")[0]).add(m.split(" ")[1]);
        return model;
    }
}
