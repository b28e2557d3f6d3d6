package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Reads the {@code decoder} of tokenizer.json; a kind this reader does not know is refused, never skipped. */
final class Decoders {
    static final String SUPPORTED = "ByteLevel, Metaspace, Sequence, Replace, ByteFallback, Fuse, Strip";

    private Decoders() {}

    /** The decoder at {@code where}; null for null (tokens are then joined with spaces, as Hugging Face does). */
    static Decoder read(SourceFile source, JsonNode node, String where) throws IOException {
        if (node == null || node.isNull()) return null;
        String type = source.type(node, where);
        return switch (type) {
            case "ByteLevel" -> new ByteLevel(false, true);
            case "Metaspace" -> PreTokenizers.metaspace(source, node, where);
            case "Sequence" -> {
                var parts = source.array(node, "decoders", where);
                List<Decoder> steps = new ArrayList<>(parts.size());
                for (int i = 0; i < parts.size(); i++) {
                    Decoder step = read(source, parts.get(i), where + ".decoders[" + i + "]");
                    if (step == null) throw source.error(where + ".decoders[" + i + "]", "a decoder must not be null");
                    steps.add(step);
                }
                yield tokens -> {
                    for (Decoder step : steps) tokens = step.decode(tokens);
                    return tokens;
                };
            }
            case "Replace" -> {
                ReplacePattern replace = ReplacePattern.read(source, node, where);
                yield tokens -> tokens.stream().map(replace::normalize).toList();
            }
            case "ByteFallback" -> Decoders::byteFallback;
            case "Fuse" -> tokens -> List.of(String.join("", tokens));
            case "Strip" -> strip(source.text(node, "content", where), source.nonNegativeInt(node, "start", where),
                    source.nonNegativeInt(node, "stop", where), source, where);
            default -> throw source.unsupported(where, "decoder", type, SUPPORTED);
        };
    }

    /**
     * Runs of byte tokens ({@code <0x41>}) become the text their bytes spell; a run that is not
     * valid UTF-8 becomes one U+FFFD per byte, as Hugging Face's ByteFallback does.
     */
    static List<String> byteFallback(List<String> tokens) {
        List<String> out = new ArrayList<>(tokens.size());
        ByteArrayOutputStream run = new ByteArrayOutputStream();
        for (String token : tokens) {
            int b = byteToken(token);
            if (b >= 0) {
                run.write(b);
                continue;
            }
            flush(run, out);
            out.add(token);
        }
        flush(run, out);
        return out;
    }

    /** The byte a token of the form {@code <0xHH>} stands for, or -1. */
    static int byteToken(String token) {
        if (token.length() != 6 || !token.startsWith("<0x") || token.charAt(5) != '>') return -1;
        int hi = Character.digit(token.charAt(3), 16), lo = Character.digit(token.charAt(4), 16);
        return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
    }

    private static void flush(ByteArrayOutputStream run, List<String> out) {
        if (run.size() == 0) return;
        byte[] bytes = run.toByteArray();
        run.reset();
        try {
            out.add(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            for (int i = 0; i < bytes.length; i++) out.add("\uFFFD");
        }
    }

    /** Removes up to {@code start} leading and {@code stop} trailing {@code content} characters from each token. */
    private static Decoder strip(String content, int start, int stop, SourceFile source, String where) throws IOException {
        if (content.codePointCount(0, content.length()) != 1) {
            throw source.error(where, "\"content\" must be one character, found " + dev.symbiont.io.Excerpt.quote(content));
        }
        int c = content.codePointAt(0);
        return tokens -> tokens.stream().map(token -> {
            int[] cps = token.codePoints().toArray();
            int from = 0, to = cps.length;
            while (from < Math.min(start, cps.length) && cps[from] == c) from++;
            while (cps.length - to < stop && to > from && cps[to - 1] == c) to--;
            return new String(cps, from, to - from);
        }).toList();
    }
}
