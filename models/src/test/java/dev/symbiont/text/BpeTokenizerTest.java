package dev.symbiont.text;

import dev.symbiont.core.Generator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BpeTokenizerTest {
    private static String corpus;
    private static BpeTokenizer trained;

    @BeforeAll
    static void train() {
        corpus = BpeTokenizerTest.syntheticCorpus(300_000, 5);
        trained = BpeTokenizer.train(corpus, 512);
    }

    /** Zipf-distributed made-up words with punctuation and digits: structure for BPE to find. */
    static String syntheticCorpus(int chars, long seed) {
        Generator g = new Generator(seed);
        String[] syllables = {"th", "e", "an", "in", "er", "on", "re", "at", "st", "ou", "qu", "ing", "ly", "é", "ß", "ü"};
        String[] words = new String[5000];
        for (int i = 0; i < words.length; i++) {
            StringBuilder w = new StringBuilder();
            int n = 1 + g.nextInt(4);
            for (int k = 0; k < n; k++) w.append(syllables[g.nextInt(syllables.length)]);
            words[i] = w.toString();
        }
        StringBuilder text = new StringBuilder(chars + 32);
        while (text.length() < chars) {
            double u = g.nextDouble();
            int rank = (int) Math.min(words.length - 1, Math.floor(Math.pow(words.length, u)) - 1); // roughly Zipf
            text.append(words[rank]);
            int r = g.nextInt(20);
            text.append(r == 0 ? ". " : r == 1 ? ", " : r == 2 ? " " + g.nextInt(1000) + " " : r == 3 ? "\n" : " ");
        }
        return text.toString();
    }

    @Test
    void trainingAFewHundredKilobytesReachesTheRequestedVocab() {
        assertEquals(512, trained.vocabSize());
    }

    @Test
    void shouldCompressTheTrainingCorpus() {
        int bytes = corpus.getBytes(StandardCharsets.UTF_8).length;
        int tokens = trained.encode(corpus).length;
        assertTrue(tokens < bytes / 2, tokens + " tokens for " + bytes + " bytes");
    }

    @Test
    void shouldRoundTripAnyText() {
        String[] texts = {
                "", " ", "hello world", "  two  spaces\tand tabs\n\nnewlines ",
                "Ünïcödé — 日本語のテキスト", "emoji 😀👍🏽 family 👨‍👩‍👧‍👦 flags 🇫🇷",
                "it's we'll they're 123,456.78", "\u0000\u007f control", corpus.substring(0, 5000)};
        for (String s : texts) assertEquals(s, trained.decode(trained.encode(s)), s);
        assertArrayEquals(new int[0], trained.encode(""));
        var untrained = BpeTokenizer.train("", 300);
        assertEquals(256, untrained.vocabSize(), "an empty corpus learns no merges");
        assertEquals("ünseen 😀", untrained.decode(untrained.encode("ünseen 😀")));
    }

    @Test
    void trainingShouldBeDeterministic() {
        String text = corpus.substring(0, 60_000);
        BpeTokenizer a = BpeTokenizer.train(text, 400), b = BpeTokenizer.train(text, 400);
        assertEquals(a.mergeCount(), b.mergeCount());
        for (int r = 0; r < a.mergeCount(); r++) assertArrayEquals(a.merge(r), b.merge(r), "merge " + r);
    }

    @Test
    void tiesShouldGoToTheSmallestPair() {
        // (c, d) and (a, b) are equally frequent: (a, b) has smaller ids, so it merges first.
        var t = BpeTokenizer.train("cd,ab,cd,ab", 257);
        assertArrayEquals(new int[] {'a', 'b'}, t.merge(0));
    }

    @Test
    void mergesShouldNeverCrossChunkBoundaries() {
        var t = BpeTokenizer.train("ab ab ab ab cd cd ab cd. ab, cd!", 300);
        for (int id = 256; id < t.vocabSize(); id++) {
            String s = new String(t.tokenBytes(id), StandardCharsets.UTF_8);
            assertTrue(s.lastIndexOf(' ') <= 0, "a space only starts a chunk: '" + s + "'");
            assertTrue(!s.matches(".*[a-z][.,!].*"), "letters and punctuation are separate chunks: '" + s + "'");
        }
        assertEquals(List.of("ab", " ab", ".", " cd", ",", "  ", " x"), Pretokenizer.split("ab ab. cd,   x"));
    }

    @Test
    void aLeadingSpaceShouldJoinTheFollowingWord() {
        var t = BpeTokenizer.train("the cat the cat the cat the cat", 270);
        int[] ids = t.encode(" cat");
        assertEquals(1, ids.length, "' cat' is one learned token");
        assertEquals(" cat", new String(t.tokenBytes(ids[0]), StandardCharsets.UTF_8));
    }

    @Test
    void anIdOutOfRangeShouldBeNamed() {
        var e = assertThrows(IllegalArgumentException.class, () -> trained.decode(new int[] {5, 512}));
        assertTrue(e.getMessage().contains("id 512") && e.getMessage().contains("position 1"), e.getMessage());
        var negative = assertThrows(IllegalArgumentException.class, () -> trained.decode(new int[] {-4}));
        assertTrue(negative.getMessage().contains("id -4"), negative.getMessage());
    }

    @Test
    void aLoneSurrogateShouldBeRejectedNamingItsIndex() {
        var e = assertThrows(IllegalArgumentException.class, () -> trained.encode("ab\uD83D c"));
        assertTrue(e.getMessage().contains("index 2"), e.getMessage());
    }

    @Test
    void badSettingsAndMergesShouldBeRejected() {
        var small = assertThrows(IllegalArgumentException.class, () -> BpeTokenizer.train("abc", 100));
        assertTrue(small.getMessage().contains("100"), small.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new BpeTokenizer(List.of(new int[] {1, 256})));
        assertThrows(IllegalArgumentException.class, () -> new BpeTokenizer(List.of(new int[] {1, 2}, new int[] {1, 2})));
    }
}
