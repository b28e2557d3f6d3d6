package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * What a model directory says about special tokens beside tokenizer.json: tokenizer_config.json's
 * {@code bos_token}/{@code eos_token}/{@code pad_token}/{@code unk_token} (a string or
 * {@code {"content": ...}}), {@code add_bos_token}/{@code add_eos_token} (null when not set),
 * {@code model_max_length} and {@code added_tokens_decoder}; and
 * generation_config.json's {@code eos_token_id} (one id or a list: Llama 3's chat models stop
 * on three) and {@code pad_token_id}.
 */
record TokenizerConfig(String bosToken, String eosToken, String padToken, String unkToken,
                       Boolean addBosToken, Boolean addEosToken, OptionalInt modelMaxLength,
                       List<AddedToken> addedTokens,
                       int[] generationEosIds, OptionalInt generationPadId) {
    static final String FILE = "tokenizer_config.json", GENERATION_FILE = "generation_config.json";
    static final TokenizerConfig NONE = new TokenizerConfig(null, null, null, null, null, null,
            OptionalInt.empty(), List.of(), new int[0], OptionalInt.empty());

    /** The configuration files of {@code dir}, either or both of which may be missing. */
    static TokenizerConfig read(Path dir) throws IOException {
        TokenizerConfig config = NONE;
        Path file = dir.resolve(FILE);
        if (Files.isRegularFile(file)) config = tokenizerConfig(new SourceFile(file), HfJson.readObject(file, HfJson.MAX_CONFIG_BYTES));
        Path generation = dir.resolve(GENERATION_FILE);
        if (Files.isRegularFile(generation)) config = config.withGeneration(new SourceFile(generation), HfJson.readObject(generation, HfJson.MAX_CONFIG_BYTES));
        return config;
    }

    private static TokenizerConfig tokenizerConfig(SourceFile source, ObjectNode root) throws IOException {
        List<AddedToken> added = new ArrayList<>();
        JsonNode decoder = root.get("added_tokens_decoder");
        if (decoder != null && !decoder.isNull()) {
            for (var e : source.object(decoder, "added_tokens_decoder").properties()) {
                String where = "added_tokens_decoder." + e.getKey();
                int id;
                try {
                    id = Integer.parseInt(e.getKey());
                } catch (NumberFormatException bad) {
                    throw source.error(where, "the key must be an id");
                }
                if (id < 0) throw source.error(where, "the key must be an id at least 0");
                added.add(addedToken(source, e.getValue(), id, where));
            }
        }
        return new TokenizerConfig(token(source, root, "bos_token"), token(source, root, "eos_token"),
                token(source, root, "pad_token"), token(source, root, "unk_token"),
                optionalBool(source, root, "add_bos_token"), optionalBool(source, root, "add_eos_token"),
                maxLength(root.get("model_max_length")), List.copyOf(added), new int[0], OptionalInt.empty());
    }

    /** An added token of tokenizer.json or of added_tokens_decoder; flags default as Hugging Face's do. */
    static AddedToken addedToken(SourceFile source, JsonNode node, int id, String where) throws IOException {
        source.object(node, where);
        boolean special = source.bool(node, "special", where, false);
        return new AddedToken(id, source.text(node, "content", where), special,
                source.bool(node, "normalized", where, !special), source.bool(node, "lstrip", where, false),
                source.bool(node, "rstrip", where, false), source.bool(node, "single_word", where, false));
    }

    /** A special token: a string, {"content": ...}, or null. */
    private static String token(SourceFile source, ObjectNode root, String field) throws IOException {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) return null;
        if (node.isTextual()) return node.textValue();
        if (node.isObject()) return source.text(node, "content", field);
        throw source.error(field, "expected a string or {\"content\": ...}, found " + SourceFile.describe(node));
    }

    private static Boolean optionalBool(SourceFile source, ObjectNode root, String field) throws IOException {
        JsonNode node = root.get(field);
        return node == null || node.isNull() ? null : source.bool(root, field, "", false);
    }

    /** Hugging Face writes 1e30 for "no limit"; anything past an int, or not whole, counts as none. */
    private static OptionalInt maxLength(JsonNode node) {
        if (node == null || !node.isNumber()) return OptionalInt.empty();
        double v = node.doubleValue();
        return v >= 1 && v <= Integer.MAX_VALUE && v == Math.rint(v) ? OptionalInt.of((int) v) : OptionalInt.empty();
    }

    private TokenizerConfig withGeneration(SourceFile source, ObjectNode root) throws IOException {
        JsonNode eos = root.get("eos_token_id");
        int[] eosIds;
        if (eos == null || eos.isNull()) {
            eosIds = new int[0];
        } else if (eos.isArray()) {
            eosIds = new int[eos.size()];
            for (int i = 0; i < eosIds.length; i++) eosIds[i] = id(source, eos.get(i), "eos_token_id[" + i + "]");
        } else {
            eosIds = new int[] {id(source, eos, "eos_token_id")};
        }
        JsonNode pad = root.get("pad_token_id");
        OptionalInt padId = pad == null || pad.isNull() ? OptionalInt.empty() : OptionalInt.of(id(source, pad, "pad_token_id"));
        return new TokenizerConfig(bosToken, eosToken, padToken, unkToken, addBosToken, addEosToken, modelMaxLength,
                addedTokens, eosIds, padId);
    }

    private static int id(SourceFile source, JsonNode node, String where) throws IOException {
        if (node == null || !node.isInt() || node.intValue() < 0) throw source.error(where, "expected an id, found " + SourceFile.describe(node));
        return node.intValue();
    }
}
