package dev.symbiont.text.hf;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.Excerpt;
import dev.symbiont.io.InvalidJson;
import dev.symbiont.io.JsonFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Strict reading of the JSON files of a Hugging Face tokenizer, which may come from a stranger:
 * bounded size, UTF-8 only, no key twice, nesting at most 128 deep (serde_json's limit), nothing
 * after the value. The vocabulary and merges, which are most of a tokenizer.json (Llama 3's is
 * 9 MB), are read as a stream straight into their maps, not through a JSON tree.
 */
final class HfJson {
    /** The largest tokenizer.json or vocab.json read: Gemma 3's, the largest in common use, is 33 MB. */
    static final int MAX_TOKENIZER_BYTES = 64 << 20;
    /** The largest tokenizer_config.json or generation_config.json (chat templates make some 100 KB). */
    static final int MAX_CONFIG_BYTES = 16 << 20;
    // Names are not canonicalised: a vocabulary's 100,000 keys would fill the shared symbol table.
    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(128).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .build();
    static final ObjectMapper MAPPER = JsonMapper.builder(FACTORY).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    /** For one value inside a document read as a stream, where what follows it is not trailing. */
    static final ObjectMapper SUBTREE = JsonMapper.builder(FACTORY).build();

    private HfJson() {}

    /** A small JSON file's root object. */
    static ObjectNode readObject(Path file, int limit) throws IOException {
        byte[] bytes = JsonFiles.readUtf8(file, limit);
        JsonNode root;
        try (JsonParser parser = FACTORY.createParser(bytes)) {
            root = MAPPER.readTree(parser);
        } catch (IOException e) {
            throw InvalidJson.of(file, e);
        }
        if (root == null || root.isMissingNode()) throw new IOException(file + ": the file is empty");
        if (!(root instanceof ObjectNode object)) throw new IOException(file + ": expected a JSON object, found " + root.getNodeType());
        return object;
    }

    /** A vocabulary {"token": id, ...} read from the parser, which stands on its START_OBJECT. */
    static Map<String, Integer> readVocab(JsonParser p, SourceFile source, String where) throws IOException {
        Map<String, Integer> vocab = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String token = p.currentName();
            JsonToken value = p.nextToken();
            if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT || p.getIntValue() < 0) {
                throw source.error(where, "the id of " + Excerpt.quote(token) + " must be an integer at least 0, found "
                        + Excerpt.of(value == null ? "nothing" : p.getText()));
            }
            vocab.put(token, p.getIntValue());
        }
        return vocab;
    }

    /** Merges, each "left right" or ["left", "right"], read from the parser, which stands on its START_ARRAY. */
    static List<String[]> readMerges(JsonParser p, SourceFile source, String where) throws IOException {
        List<String[]> merges = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            String at = where + "[" + merges.size() + "]";
            if (t == JsonToken.VALUE_STRING) {
                merges.add(splitMerge(source, p.getText(), at));
            } else if (t == JsonToken.START_ARRAY) {
                String left = p.nextToken() == JsonToken.VALUE_STRING ? p.getText() : null;
                String right = left != null && p.nextToken() == JsonToken.VALUE_STRING ? p.getText() : null;
                if (right == null || p.nextToken() != JsonToken.END_ARRAY) {
                    throw source.error(at, "a merge must be \"left right\" or [\"left\", \"right\"]");
                }
                merges.add(new String[] {left, right});
            } else {
                throw source.error(at, "a merge must be \"left right\" or [\"left\", \"right\"], found " + Excerpt.of(t));
            }
        }
        return merges;
    }

    /** "left right" as its two tokens; like Hugging Face, exactly one space. */
    static String[] splitMerge(SourceFile source, String merge, String where) throws IOException {
        int space = merge.indexOf(' ');
        if (space < 0 || merge.indexOf(' ', space + 1) >= 0) {
            throw source.error(where, Excerpt.quote(merge) + " is not two tokens separated by one space");
        }
        return new String[] {merge.substring(0, space), merge.substring(space + 1)};
    }

    /** Id to token for a vocabulary, refusing ids that are not dense ({@link #checkDense}). */
    static String[] tokensById(Map<String, Integer> vocab, SourceFile source, String where) throws IOException {
        int max = -1;
        for (var e : vocab.entrySet()) {
            checkDense(source, where, e.getValue(), e.getKey(), vocab.size());
            max = Math.max(max, e.getValue());
        }
        String[] tokens = new String[max + 1];
        for (var e : vocab.entrySet()) {
            int id = e.getValue();
            // Two tokens with one id: keep the smaller string, so the choice does not depend on map order.
            if (tokens[id] == null || e.getKey().compareTo(tokens[id]) < 0) tokens[id] = e.getKey();
        }
        return tokens;
    }

    /**
     * Refuses an id far past the number of tokens there are: tables indexed by id would cost more
     * than the file (a 20-byte file could ask for gigabytes), and real vocabularies are dense.
     */
    static void checkDense(SourceFile source, String where, int id, String token, int tokenCount) throws IOException {
        if (id >= 2L * tokenCount + 1024) {
            throw source.error(where, "the id " + id + " of " + Excerpt.quote(token) + " is far past the " + tokenCount
                    + " tokens there are; ids must be dense");
        }
    }
}
