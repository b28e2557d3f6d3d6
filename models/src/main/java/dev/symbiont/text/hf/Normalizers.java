package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.text.Normalizer.Form;
import java.util.ArrayList;
import java.util.List;

/** Reads the {@code normalizer} of tokenizer.json; a kind this reader does not know is refused, never skipped. */
final class Normalizers {
    static final String SUPPORTED = "Sequence, Prepend, Replace, NFC, NFD, NFKC, NFKD";

    private Normalizers() {}

    /** The normalizer at {@code where}; {@link Normalizer#IDENTITY} for null. */
    static Normalizer read(SourceFile source, JsonNode node, String where) throws IOException {
        if (node == null || node.isNull()) return Normalizer.IDENTITY;
        String type = source.type(node, where);
        return switch (type) {
            case "Sequence" -> {
                var parts = source.array(node, "normalizers", where);
                List<Normalizer> steps = new ArrayList<>(parts.size());
                for (int i = 0; i < parts.size(); i++) steps.add(read(source, parts.get(i), where + ".normalizers[" + i + "]"));
                yield text -> {
                    for (Normalizer step : steps) text = step.normalize(text);
                    return text;
                };
            }
            case "Prepend" -> {
                String prefix = source.text(node, "prepend", where);
                yield text -> text.isEmpty() ? text : prefix + text;
            }
            case "Replace" -> ReplacePattern.read(source, node, where);
            case "NFC" -> unicode(Form.NFC);
            case "NFD" -> unicode(Form.NFD);
            case "NFKC" -> unicode(Form.NFKC);
            case "NFKD" -> unicode(Form.NFKD);
            default -> throw source.unsupported(where, "normalizer", type, SUPPORTED);
        };
    }

    private static Normalizer unicode(Form form) {
        return text -> java.text.Normalizer.normalize(text, form);
    }
}
