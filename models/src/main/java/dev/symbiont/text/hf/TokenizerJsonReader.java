package dev.symbiont.text.hf;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.symbiont.io.Excerpt;
import dev.symbiont.io.InvalidJson;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Hugging Face's tokenizer.json (format "version": "1.0"). The model must be BPE; every
 * component is checked against the kinds this package implements and an unknown one is refused
 * naming the file and its JSON path. {@code truncation} and {@code padding} are ignored, as
 * transformers overrides them on every call.
 */
final class TokenizerJsonReader {
    static final String FILE = "tokenizer.json";

    private TokenizerJsonReader() {}

    /** The parts of the document: the small components as trees, the model's vocabulary and merges as maps. */
    private static final class Document {
        final Map<String, JsonNode> parts = new HashMap<>();
        final Map<String, JsonNode> modelOptions = new HashMap<>();
        Map<String, Integer> vocab;
        List<String[]> merges;
        String vocabKind = "nothing", mergesKind = "nothing"; // what was found where a map or list was due
    }

    /**
     * Whether {@code bytes} hold a Hugging Face tokenizer.json rather than one of this library's
     * own tokenizer files: its top-level object names a "model" before (or without) a "kind".
     * A syntax error before either is found answers false, so the caller's reader reports it.
     */
    static boolean looksLikeTokenizerJson(byte[] bytes) {
        try (JsonParser p = HfJson.FACTORY.createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                if (name.equals("kind")) return false;
                if (name.equals("model")) return true;
                p.nextToken();
                p.skipChildren();
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    static HfTokenizer read(Path file, byte[] bytes, TokenizerConfig config, Path configDir) throws IOException {
        SourceFile source = new SourceFile(file);
        Document doc = parse(source, bytes);
        JsonNode version = doc.parts.get("version");
        if (version == null || !"1.0".equals(version.textValue())) {
            throw source.error("version", "unsupported tokenizer.json version " + SourceFile.describe(version) + "; this reader understands \"1.0\"");
        }
        if (!doc.parts.containsKey("model")) throw source.error("", "no \"model\"");
        BpeModel model = model(source, doc);
        List<AddedToken> added = addedTokens(source, doc.parts.get("added_tokens"), model);
        Normalizer normalizer = Normalizers.read(source, doc.parts.get("normalizer"), "normalizer");
        PreTokenizer preTokenizer = PreTokenizers.read(source, doc.parts.get("pre_tokenizer"), "pre_tokenizer");
        Decoder decoder = Decoders.read(source, doc.parts.get("decoder"), "decoder");
        Template template = Template.read(source, doc.parts.get("post_processor"), "post_processor");
        for (int id : template.ids()) {
            if (model.token(id) == null && added.stream().noneMatch(t -> t.id() == id)) {
                throw source.error("post_processor", "the template adds the id " + id + ", which has no token");
            }
        }
        SpecialTokens specials = SpecialTokens.resolve(config, configDir, model, added, template, null);
        return new HfTokenizer(normalizer, preTokenizer, model, decoder, specials, out -> out.write(bytes));
    }

    private static Document parse(SourceFile source, byte[] bytes) throws IOException {
        Document doc = new Document();
        try (JsonParser p = HfJson.FACTORY.createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw source.error("", "expected a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("model") && value == JsonToken.START_OBJECT) {
                    readModel(p, source, doc);
                    doc.parts.put("model", HfJson.MAPPER.getNodeFactory().objectNode());
                } else {
                    doc.parts.put(name, HfJson.SUBTREE.readTree(p));
                }
            }
            if (p.nextToken() != null) throw source.error("", "content after the JSON object, at line " + p.currentLocation().getLineNr());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw InvalidJson.of(source.path(), e);
        }
        return doc;
    }

    private static void readModel(JsonParser p, SourceFile source, Document doc) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (name.equals("vocab") && value == JsonToken.START_OBJECT) {
                doc.vocab = HfJson.readVocab(p, source, "model.vocab");
            } else if (name.equals("merges") && value == JsonToken.START_ARRAY) {
                doc.merges = HfJson.readMerges(p, source, "model.merges");
            } else if (name.equals("vocab") || name.equals("merges")) {
                if (name.equals("vocab")) doc.vocabKind = kind(value);
                else doc.mergesKind = kind(value);
                p.skipChildren();
            } else {
                doc.modelOptions.put(name, HfJson.SUBTREE.readTree(p));
            }
        }
    }

    private static String kind(JsonToken t) {
        return switch (t) {
            case START_ARRAY -> "an array";
            case START_OBJECT -> "an object";
            case VALUE_STRING -> "a string";
            case VALUE_NULL -> "null";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            default -> "a number";
        };
    }

    private static BpeModel model(SourceFile source, Document doc) throws IOException {
        JsonNode type = doc.modelOptions.get("type");
        if (type == null || !type.isTextual()) throw source.error("model", "\"type\" must be a string, found " + SourceFile.describe(type));
        if (!type.textValue().equals("BPE")) throw source.unsupported("model", "model", type.textValue(), "BPE");
        if (doc.vocab == null) throw source.error("model", "\"vocab\" must be an object of token to id, found " + doc.vocabKind);
        if (doc.merges == null) throw source.error("model", "\"merges\" must be an array, found " + doc.mergesKind);
        var options = HfJson.MAPPER.getNodeFactory().objectNode();
        doc.modelOptions.forEach(options::set);
        JsonNode dropout = options.get("dropout");
        if (dropout != null && !dropout.isNull() && !(dropout.isNumber() && dropout.doubleValue() == 0)) {
            throw source.error("model.dropout", "BPE dropout " + Excerpt.of(dropout) + " is not supported (it makes encoding random)");
        }
        for (String affix : new String[] {"continuing_subword_prefix", "end_of_word_suffix"}) {
            String value = source.textOr(options, affix, "model", "");
            if (!value.isEmpty()) throw source.error("model." + affix, Excerpt.quote(value) + " is not supported; only BPE without one is");
        }
        var bpe = new BpeModel.Options(source.textOr(options, "unk_token", "model", null),
                source.bool(options, "fuse_unk", "model", false), source.bool(options, "byte_fallback", "model", false),
                source.bool(options, "ignore_merges", "model", false));
        String[] tokens = HfJson.tokensById(doc.vocab, source, "model.vocab");
        return new BpeModel(source, doc.vocab, tokens, doc.merges, r -> "model.merges[" + r + "]", bpe);
    }

    private static List<AddedToken> addedTokens(SourceFile source, JsonNode node, BpeModel model) throws IOException {
        List<AddedToken> out = new ArrayList<>();
        if (node == null || node.isNull()) return out;
        if (!node.isArray()) throw source.error("added_tokens", "expected an array, found " + SourceFile.describe(node));
        Map<Integer, String> seen = new HashMap<>();
        for (int i = 0; i < node.size(); i++) {
            String where = "added_tokens[" + i + "]";
            int id = source.nonNegativeInt(source.object(node.get(i), where), "id", where);
            AddedToken t = TokenizerConfig.addedToken(source, node.get(i), id, where);
            HfJson.checkDense(source, where, id, t.content(), model.idLimit() + node.size());
            int inVocab = model.id(t.content());
            if (inVocab >= 0 && inVocab != id) {
                throw source.error(where, Excerpt.quote(t.content()) + " has id " + id + " here but " + inVocab + " in the vocabulary");
            }
            String holder = model.token(id);
            if (holder != null && !holder.equals(t.content())) {
                throw source.error(where, "the id " + id + " of " + Excerpt.quote(t.content()) + " is the vocabulary's " + Excerpt.quote(holder));
            }
            String previous = seen.put(id, t.content());
            if (previous != null) throw source.error(where, "the id " + id + " is also the added token " + Excerpt.quote(previous));
            out.add(t);
        }
        return out;
    }
}
