package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Reads the {@code pre_tokenizer} of tokenizer.json; a kind this reader does not know is refused, never skipped. */
final class PreTokenizers {
    static final String SUPPORTED = "ByteLevel, Metaspace, Split, Sequence";

    private PreTokenizers() {}

    /** The pre-tokenizer at {@code where}; {@link PreTokenizer#NONE} for null. */
    static PreTokenizer read(SourceFile source, JsonNode node, String where) throws IOException {
        if (node == null || node.isNull()) return PreTokenizer.NONE;
        String type = source.type(node, where);
        return switch (type) {
            case "ByteLevel" -> new ByteLevel(source.requiredBool(node, "add_prefix_space", where),
                    source.bool(node, "use_regex", where, true));
            case "Metaspace" -> metaspace(source, node, where);
            case "Split" -> split(source, node, where);
            case "Sequence" -> {
                var parts = source.array(node, "pretokenizers", where);
                List<PreTokenizer> steps = new ArrayList<>(parts.size());
                for (int i = 0; i < parts.size(); i++) steps.add(read(source, parts.get(i), where + ".pretokenizers[" + i + "]"));
                yield (piece, out) -> {
                    List<Piece> pieces = List.of(piece);
                    for (PreTokenizer step : steps) {
                        List<Piece> next = new ArrayList<>();
                        for (Piece p : pieces) step.split(p, next);
                        pieces = next;
                    }
                    out.addAll(pieces);
                };
            }
            default -> throw source.unsupported(where, "pre-tokenizer", type, SUPPORTED);
        };
    }

    /** Metaspace as a pre-tokenizer or a decoder; the older {@code add_prefix_space} stands for a scheme. */
    static Metaspace metaspace(SourceFile source, JsonNode node, String where) throws IOException {
        String replacement = source.text(node, "replacement", where);
        if (replacement.length() != 1) {
            throw source.error(where, "\"replacement\" must be one character, found " + dev.symbiont.io.Excerpt.quote(replacement));
        }
        String scheme = source.textOr(node, "prepend_scheme", where, null);
        boolean addPrefixSpace = source.bool(node, "add_prefix_space", where, true);
        Metaspace.PrependScheme prepend;
        if (scheme == null) {
            prepend = addPrefixSpace ? Metaspace.PrependScheme.ALWAYS : Metaspace.PrependScheme.NEVER;
        } else {
            prepend = switch (scheme) {
                case "always" -> Metaspace.PrependScheme.ALWAYS;
                case "first" -> Metaspace.PrependScheme.FIRST;
                case "never" -> Metaspace.PrependScheme.NEVER;
                default -> throw source.error(where, "\"prepend_scheme\" must be \"always\", \"first\" or \"never\", found "
                        + dev.symbiont.io.Excerpt.quote(scheme));
            };
            if (!addPrefixSpace && prepend != Metaspace.PrependScheme.NEVER) {
                throw source.error(where, "\"add_prefix_space\": false contradicts \"prepend_scheme\": \"" + scheme + "\"");
            }
        }
        return new Metaspace(replacement.charAt(0), prepend, source.bool(node, "split", where, true));
    }

    private static PreTokenizer split(SourceFile source, JsonNode node, String where) throws IOException {
        Pattern pattern = ReplacePattern.pattern(source, node.get("pattern"), where + ".pattern");
        String name = source.text(node, "behavior", where);
        SplitBehavior behavior = SplitBehavior.parse(name);
        if (behavior == null) {
            throw source.error(where, "unknown split \"behavior\" " + dev.symbiont.io.Excerpt.quote(name)
                    + "; expected Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
        }
        boolean invert = source.bool(node, "invert", where, false);
        return (piece, out) -> {
            var segments = SplitBehavior.segments(pattern, piece.text());
            if (invert) segments.replaceAll(s -> new SplitBehavior.Segment(s.start(), s.end(), !s.match()));
            behavior.split(piece, segments, out);
        };
    }
}
