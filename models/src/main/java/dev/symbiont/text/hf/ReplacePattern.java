package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Replace normalizer or decoder: every match of {@code pattern} ({@code {"String": " "}} or
 * {@code {"Regex": "..."}}) becomes {@code content}, taken literally.
 */
record ReplacePattern(Pattern pattern, String content) implements Normalizer {
    static ReplacePattern read(SourceFile source, JsonNode node, String where) throws IOException {
        return new ReplacePattern(pattern(source, node.get("pattern"), where + ".pattern"),
                source.text(node, "content", where));
    }

    /** A "pattern" object of tokenizer.json: a literal string or an Oniguruma regex. */
    static Pattern pattern(SourceFile source, JsonNode pattern, String where) throws IOException {
        if (pattern != null && pattern.isObject() && pattern.size() == 1) {
            if (pattern.get("String") != null && pattern.get("String").isTextual()) {
                return OnigurumaPatterns.literal(pattern.get("String").textValue());
            }
            if (pattern.get("Regex") != null && pattern.get("Regex").isTextual()) {
                String regex = pattern.get("Regex").textValue();
                try {
                    return OnigurumaPatterns.compile(regex);
                } catch (OnigurumaPatterns.UnsupportedPatternException e) {
                    throw source.error(where, "the regex " + dev.symbiont.io.Excerpt.quote(regex) + " is not supported: " + e.getMessage());
                }
            }
        }
        throw source.error(where, "expected {\"String\": ...} or {\"Regex\": ...}, found " + SourceFile.describe(pattern));
    }

    @Override
    public String normalize(String text) {
        return pattern.matcher(text).replaceAll(Matcher.quoteReplacement(content));
    }
}
