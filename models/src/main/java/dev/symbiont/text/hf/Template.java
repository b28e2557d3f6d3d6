package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.symbiont.io.Excerpt;

import java.io.IOException;
import java.util.Arrays;

/**
 * The special tokens {@code encode(text, true)} puts around the ids of one text: Hugging Face's
 * {@code post_processor} for a single sequence (TemplateProcessing's {@code single}, e.g.
 * {@code <s> $A}), or the one tokenizer_config.json's {@code add_bos_token}/{@code add_eos_token} make.
 */
record Template(int[] prefix, int[] suffix) {
    static final Template NONE = new Template(new int[0], new int[0]);
    static final String SUPPORTED = "TemplateProcessing, ByteLevel, Sequence";

    /** The post-processor at {@code where}; {@link #NONE} for null or one that adds no tokens. */
    static Template read(SourceFile source, JsonNode node, String where) throws IOException {
        if (node == null || node.isNull()) return NONE;
        String type = source.type(node, where);
        return switch (type) {
            case "ByteLevel" -> NONE; // it only trims offsets
            case "TemplateProcessing" -> template(source, node, where);
            case "Sequence" -> {
                var parts = source.array(node, "processors", where);
                Template combined = NONE;
                for (int i = 0; i < parts.size(); i++) combined = combined.then(read(source, parts.get(i), where + ".processors[" + i + "]"));
                yield combined;
            }
            default -> throw source.unsupported(where, "post-processor", type, SUPPORTED);
        };
    }

    /** This template, then {@code outer} around its result. */
    Template then(Template outer) {
        return new Template(concat(outer.prefix, prefix), concat(suffix, outer.suffix));
    }

    private static Template template(SourceFile source, JsonNode node, String where) throws IOException {
        var single = source.array(node, "single", where);
        JsonNode specials = source.object(node.get("special_tokens"), where + ".special_tokens");
        int[] prefix = new int[0], suffix = new int[0];
        boolean seenSequence = false;
        for (int i = 0; i < single.size(); i++) {
            String at = where + ".single[" + i + "]";
            JsonNode piece = source.object(single.get(i), at);
            if (piece.has("Sequence")) {
                String id = source.text(source.object(piece.get("Sequence"), at), "id", at);
                if (!id.equals("A") || seenSequence) {
                    throw source.error(at, "a single-sequence template holds $A once, found " + Excerpt.quote("$" + id));
                }
                seenSequence = true;
            } else if (piece.has("SpecialToken")) {
                String name = source.text(source.object(piece.get("SpecialToken"), at), "id", at);
                JsonNode special = specials.get(name);
                if (special == null) throw source.error(at, "the special token " + Excerpt.quote(name) + " is not in \"special_tokens\"");
                var ids = source.array(special, "ids", where + ".special_tokens." + name);
                int[] values = new int[ids.size()];
                for (int k = 0; k < values.length; k++) {
                    if (!ids.get(k).isInt() || ids.get(k).intValue() < 0) {
                        throw source.error(where + ".special_tokens." + name, "ids[" + k + "] must be an id, found " + SourceFile.describe(ids.get(k)));
                    }
                    values[k] = ids.get(k).intValue();
                }
                if (seenSequence) suffix = concat(suffix, values);
                else prefix = concat(prefix, values);
            } else {
                throw source.error(at, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}, found " + SourceFile.describe(piece));
            }
        }
        if (!seenSequence) throw source.error(where + ".single", "the template has no $A");
        return new Template(prefix, suffix);
    }

    static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Every id the template adds. */
    int[] ids() { return concat(prefix, suffix); }
}
