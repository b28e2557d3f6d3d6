package dev.symbiont.text.hf;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.symbiont.io.InvalidJson;
import dev.symbiont.io.JsonFiles;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * GPT-2's original tokenizer files: {@code vocab.json} (token to id) and {@code merges.txt} (a
 * {@code #version} line, then one merge "left right" a line, in rank order). They make a
 * byte-level BPE tokenizer with GPT-2's split, as transformers' GPT2TokenizerFast does, whose
 * bos, eos and unk tokens default to {@code <|endoftext|>}.
 */
final class Gpt2Files {
    static final String VOCAB = "vocab.json", MERGES = "merges.txt";
    static final String ENDOFTEXT = "<|endoftext|>";

    private Gpt2Files() {}

    static HfTokenizer read(Path vocabFile, Path mergesFile, TokenizerConfig config, Path configDir) throws IOException {
        SourceFile vocabSource = new SourceFile(vocabFile);
        Map<String, Integer> vocab = readVocab(vocabSource, JsonFiles.readUtf8(vocabFile, HfJson.MAX_TOKENIZER_BYTES));
        List<Integer> lines = new ArrayList<>();
        List<String[]> merges = readMerges(new SourceFile(mergesFile), JsonFiles.readUtf8(mergesFile, HfJson.MAX_TOKENIZER_BYTES), lines);
        String[] tokens = HfJson.tokensById(vocab, vocabSource, "");
        BpeModel model = new BpeModel(new SourceFile(mergesFile), vocab, tokens, merges, r -> "line " + lines.get(r),
                new BpeModel.Options(null, false, false, false));
        String defaults = vocab.containsKey(ENDOFTEXT) ? ENDOFTEXT : null;
        SpecialTokens specials = SpecialTokens.resolve(config, configDir, model, List.of(), Template.NONE, defaults);
        ByteLevel byteLevel = new ByteLevel(false, true);
        return new HfTokenizer(Normalizer.IDENTITY, byteLevel, model, byteLevel, specials, out -> write(out, model, specials));
    }

    private static Map<String, Integer> readVocab(SourceFile source, byte[] bytes) throws IOException {
        try (JsonParser p = HfJson.FACTORY.createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw source.error("", "expected a JSON object of token to id");
            Map<String, Integer> vocab = HfJson.readVocab(p, source, "");
            if (p.nextToken() != null) throw source.error("", "content after the JSON object");
            return vocab;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw InvalidJson.of(source.path(), e);
        }
    }

    /** The merges, skipping {@code #version} lines as Hugging Face does; {@code lines} gets each one's line number. */
    private static List<String[]> readMerges(SourceFile source, byte[] bytes, List<Integer> lines) throws IOException {
        String text = new String(bytes, StandardCharsets.UTF_8);
        List<String[]> merges = new ArrayList<>();
        int line = 0;
        for (int start = 0; start < text.length(); ) {
            int end = text.indexOf('\n', start);
            if (end < 0) end = text.length();
            String content = text.substring(start, end > start && text.charAt(end - 1) == '\r' ? end - 1 : end);
            start = end + 1;
            line++;
            if (content.startsWith("#version")) continue;
            merges.add(HfJson.splitMerge(source, content, "line " + line));
            lines.add(line);
        }
        return merges;
    }

    /** The tokenizer.json transformers makes of these files (GPT2Converter), with the added tokens and template in force. */
    private static void write(OutputStream out, BpeModel model, SpecialTokens specials) throws IOException {
        try (JsonGenerator g = HfJson.FACTORY.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            g.writeStringField("version", "1.0");
            g.writeNullField("truncation");
            g.writeNullField("padding");
            g.writeArrayFieldStart("added_tokens");
            for (AddedToken t : specials.added().stream().sorted(java.util.Comparator.comparingInt(AddedToken::id)).toList()) {
                g.writeStartObject();
                g.writeNumberField("id", t.id());
                g.writeStringField("content", t.content());
                g.writeBooleanField("single_word", t.singleWord());
                g.writeBooleanField("lstrip", t.lstrip());
                g.writeBooleanField("rstrip", t.rstrip());
                g.writeBooleanField("normalized", t.normalized());
                g.writeBooleanField("special", t.special());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNullField("normalizer");
            byteLevel(g, "pre_tokenizer", false);
            postProcessor(g, specials.template(), id -> content(id, model, specials));
            byteLevel(g, "decoder", true);
            g.writeObjectFieldStart("model");
            g.writeStringField("type", "BPE");
            g.writeNullField("dropout");
            g.writeNullField("unk_token");
            g.writeStringField("continuing_subword_prefix", "");
            g.writeStringField("end_of_word_suffix", "");
            g.writeBooleanField("fuse_unk", false);
            g.writeBooleanField("byte_fallback", false);
            g.writeBooleanField("ignore_merges", false);
            g.writeObjectFieldStart("vocab");
            for (int id = 0; id < model.idLimit(); id++) if (model.token(id) != null) g.writeNumberField(model.token(id), id);
            g.writeEndObject();
            g.writeArrayFieldStart("merges");
            for (int r = 0; r < model.mergeCount(); r++) {
                String[] m = model.merge(r);
                g.writeStartArray();
                g.writeString(m[0]);
                g.writeString(m[1]);
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    private static void byteLevel(JsonGenerator g, String field, boolean addPrefixSpace) throws IOException {
        g.writeObjectFieldStart(field);
        g.writeStringField("type", "ByteLevel");
        g.writeBooleanField("add_prefix_space", addPrefixSpace);
        g.writeBooleanField("trim_offsets", true);
        g.writeBooleanField("use_regex", true);
        g.writeEndObject();
    }

    /** ByteLevel when nothing is added, else a TemplateProcessing of the tokens around $A. */
    private static void postProcessor(JsonGenerator g, Template template, java.util.function.IntFunction<String> name) throws IOException {
        if (template.ids().length == 0) {
            g.writeObjectFieldStart("post_processor");
            g.writeStringField("type", "ByteLevel");
            g.writeBooleanField("add_prefix_space", true);
            g.writeBooleanField("trim_offsets", false);
            g.writeBooleanField("use_regex", true);
            g.writeEndObject();
            return;
        }
        g.writeObjectFieldStart("post_processor");
        g.writeStringField("type", "TemplateProcessing");
        g.writeArrayFieldStart("single");
        for (int id : template.prefix()) specialPiece(g, name.apply(id));
        g.writeStartObject();
        g.writeObjectFieldStart("Sequence");
        g.writeStringField("id", "A");
        g.writeNumberField("type_id", 0);
        g.writeEndObject();
        g.writeEndObject();
        for (int id : template.suffix()) specialPiece(g, name.apply(id));
        g.writeEndArray();
        g.writeArrayFieldStart("pair");
        g.writeEndArray();
        g.writeObjectFieldStart("special_tokens");
        for (int id : java.util.stream.IntStream.of(template.ids()).distinct().toArray()) {
            g.writeObjectFieldStart(name.apply(id));
            g.writeStringField("id", name.apply(id));
            g.writeArrayFieldStart("ids");
            g.writeNumber(id);
            g.writeEndArray();
            g.writeArrayFieldStart("tokens");
            g.writeString(name.apply(id));
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /** The content of a special token the template adds. */
    private static String content(int id, BpeModel model, SpecialTokens specials) {
        for (AddedToken t : specials.added()) if (t.id() == id) return t.content();
        return model.token(id);
    }

    private static void specialPiece(JsonGenerator g, String name) throws IOException {
        g.writeStartObject();
        g.writeObjectFieldStart("SpecialToken");
        g.writeStringField("id", name);
        g.writeNumberField("type_id", 0);
        g.writeEndObject();
        g.writeEndObject();
    }
}
