package dev.symbiont.text.hf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Oniguruma constructs whose java.util.regex spelling differs, each matched as Oniguruma matches it. */
class OnigurumaPatternsTest {
    private static boolean matches(String onig, String text) throws Exception {
        return OnigurumaPatterns.compile(onig).matcher(text).matches();
    }

    @Test
    void hexDigitAndVerticalTabKeepTheirOnigurumaMeaning() throws Exception {
        assertTrue(matches("\\h+", "09aF"));
        assertFalse(matches("\\h", " "), "\\h is horizontal space in Java, a hex digit in Oniguruma");
        assertTrue(matches("[\\hx]+", "x0f"));
        assertTrue(matches("\\H", "g"));
        assertTrue(matches("\\v", "\u000B"));
        assertFalse(matches("\\v", "\n"), "\\v is any vertical space in Java, only the tab in Oniguruma");
    }

    @Test
    void posixBracketsAndNegatedPropertiesAreTranslated() throws Exception {
        assertTrue(matches("[[:alpha:]]+", "abcé"));
        assertFalse(matches("[[:alpha:]]", ":"), "Java would read [[:alpha:]] as the set of ':', 'a', 'l', ...");
        assertTrue(matches("[[:^digit:]]", "x"));
        assertTrue(matches("[[:word:]]+", "a_1"));
        assertTrue(matches("\\p{^L}", "1"));
        assertFalse(matches("\\p{^L}", "a"));
        assertTrue(matches("[]a]+", "]a"), "a ']' first in a class is a literal in Oniguruma");
    }

    @Test
    void dotLineAnchorsAndRubysOptionMMatchAsInRuby() throws Exception {
        assertFalse(matches("a.b", "a\nb"));
        assertTrue(matches("a.b", "a\rb"), "only \\n ends a line in Oniguruma");
        assertTrue(matches("(?m:a.b)", "a\nb"), "Ruby's m is dot-all");
        assertTrue(matches("(?i:'S)", "'s"));
        Pattern lineStart = OnigurumaPatterns.compile("^b");
        assertTrue(lineStart.matcher("a\nb").find(), "Ruby's ^ matches at every line");
    }

    @Test
    void constructsWithoutAJavaTwinAreRefused() {
        assertThrows(OnigurumaPatterns.UnsupportedPatternException.class, () -> OnigurumaPatterns.compile("a\\Kb"));
        assertThrows(OnigurumaPatterns.UnsupportedPatternException.class, () -> OnigurumaPatterns.compile("(?~abc)"));
        assertThrows(OnigurumaPatterns.UnsupportedPatternException.class, () -> OnigurumaPatterns.compile("[[:nosuch:]]"));
        assertThrows(OnigurumaPatterns.UnsupportedPatternException.class, () -> OnigurumaPatterns.compile("(unclosed"));
    }

    @Test
    void splitBehavioursGroupDelimitersAsHuggingFaceDoes() {
        // Hugging Face's own examples for "The-final--countdown" split on '-'.
        assertEquals(List.of("The", "final", "countdown"), split(SplitBehavior.REMOVED));
        assertEquals(List.of("The", "-", "final", "-", "-", "countdown"), split(SplitBehavior.ISOLATED));
        assertEquals(List.of("The-", "final-", "-", "countdown"), split(SplitBehavior.MERGED_WITH_PREVIOUS));
        assertEquals(List.of("The", "-final", "-", "-countdown"), split(SplitBehavior.MERGED_WITH_NEXT));
        assertEquals(List.of("The", "-", "final", "--", "countdown"), split(SplitBehavior.CONTIGUOUS));
    }

    private static List<String> split(SplitBehavior behavior) {
        String text = "The-final--countdown";
        List<Piece> out = new ArrayList<>();
        behavior.split(new Piece(text, true), SplitBehavior.segments('-', text), out);
        return out.stream().map(Piece::text).toList();
    }
}
