package dev.symbiont.text;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CharTokenizerTest {
    @Test
    void vocabularyShouldBeTheSortedDistinctCodePoints() {
        var t = CharTokenizer.fit("hello world");
        assertEquals(8, t.vocabSize());
        assertArrayEquals(" dehlorw".codePoints().toArray(), t.codePoints());
        assertArrayEquals(new int[] {3, 2, 4, 4, 5}, t.encode("hello"));
    }

    @Test
    void shouldRoundTripAsciiUnicodeAndEmpty() {
        String corpus = "The quick brown fox. Ünïcödé — 日本語 😀👍🏽\n\t";
        var t = CharTokenizer.fit(corpus);
        for (String s : new String[] {corpus, "", "fox 😀", "日本"}) {
            assertEquals(s, t.decode(t.encode(s)));
        }
        assertEquals(1, t.encode("😀").length, "one id per code point, not per char");
        assertArrayEquals(new int[0], t.encode(""));
    }

    @Test
    void anUnknownCharacterShouldBeNamedWithItsIndex() {
        var t = CharTokenizer.fit("abc");
        var e = assertThrows(IllegalArgumentException.class, () -> t.encode("abxc"));
        assertTrue(e.getMessage().contains("'x'"), e.getMessage());
        assertTrue(e.getMessage().contains("index 2"), e.getMessage());
        var emoji = assertThrows(IllegalArgumentException.class, () -> t.encode("a😀"));
        assertTrue(emoji.getMessage().contains("U+1F600") && emoji.getMessage().contains("index 1"), emoji.getMessage());
        var newline = assertThrows(IllegalArgumentException.class, () -> t.encode("\n"));
        assertTrue(newline.getMessage().contains("U+000A"), newline.getMessage());
    }

    @Test
    void anIdOutOfRangeShouldBeNamed() {
        var t = CharTokenizer.fit("abc");
        var e = assertThrows(IllegalArgumentException.class, () -> t.decode(new int[] {0, 7}));
        assertTrue(e.getMessage().contains("id 7") && e.getMessage().contains("position 1"), e.getMessage());
        var negative = assertThrows(IllegalArgumentException.class, () -> t.decode(new int[] {-1}));
        assertTrue(negative.getMessage().contains("id -1"), negative.getMessage());
    }

    @Test
    void unsortedCodePointsShouldBeRejected() {
        assertThrows(IllegalArgumentException.class, () -> new CharTokenizer(new int[] {98, 97}));
        assertThrows(IllegalArgumentException.class, () -> new CharTokenizer(new int[] {97, 97}));
        assertThrows(IllegalArgumentException.class, () -> new CharTokenizer(new int[] {-1}));
    }
}
