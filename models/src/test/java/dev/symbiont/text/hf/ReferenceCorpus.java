package dev.symbiont.text.hf;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Texts the tokenizers are compared on: hand-picked hard cases, and seeded random mixtures of
 * scripts, numbers, punctuation and whitespace. Characters are from blocks assigned long ago, so
 * node's and the JDK's Unicode tables agree on them; U+0085 and U+FEFF are left out, as
 * JavaScript's {@code \s} and Unicode's White_Space (Java, Oniguruma) disagree on them.
 */
final class ReferenceCorpus {
    static final List<String> HAND_PICKED = List.of(
            "Hello world",
            "  leading and trailing spaces  ",
            "naïve café, résumé; Ünïcödé Straße",
            "東京は日本の首都です。中文测试，한국어 텍스트",
            "emoji 😀👍🏽 👨‍👩‍👧‍👦 flags 🇫🇷",
            "tabs\tand\nnewlines\n\n\r\nand   runs     of spaces\n   \n",
            "numbers 1234567890 3.14159 -42 1,000,000 2024-01-01",
            "contractions: I'm you're he's we'll they've I'd can't DON'T It's",
            "code: def f(x):\n    return x**2  # comment\n",
            "punctuation!!! ??? ... --- ((()))",
            "mixed: abc123def 12ab 'quoted' \"double\"",
            "",
            " ",
            "\n",
            "a",
            "pneumonoultramicroscopicsilicovolcanoconiosis",
            "\u00a0non-breaking\u3000ideographic space\u2003em space",
            "combining e\u0301 a\u0308, digits ١٢٣ ४५६",
            "trailing newline\n");

    private static final String[] POOLS = {
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "0123456789",
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        " ", "  \t", "\n", "\r\n",
        "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßÀÉÎÕÜ",
        "абвгдежзийклмнопрстуфхцчшщыэюя",
    };

    private ReferenceCorpus() {}

    /** {@code count} random texts of up to {@code maxLength} code points. */
    static List<String> random(long seed, int count, int maxLength) {
        Random rng = new Random(seed);
        List<String> texts = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            StringBuilder s = new StringBuilder();
            int length = 1 + rng.nextInt(maxLength);
            while (s.length() < length) {
                int run = 1 + rng.nextInt(8);
                int kind = rng.nextInt(POOLS.length + 4);
                for (int i = 0; i < run; i++) {
                    if (kind < POOLS.length) s.append(POOLS[kind].charAt(rng.nextInt(POOLS[kind].length())));
                    else if (kind == POOLS.length) s.appendCodePoint(0x4E00 + rng.nextInt(0x9FA5 - 0x4E00)); // CJK
                    else if (kind == POOLS.length + 1) s.appendCodePoint(0xAC00 + rng.nextInt(0xD7A3 - 0xAC00)); // Hangul
                    else if (kind == POOLS.length + 2) s.appendCodePoint(0x1F600 + rng.nextInt(0x50)); // emoji
                    else s.append(rng.nextBoolean() ? "'s" : "'ll");
                }
            }
            texts.add(s.toString());
        }
        return texts;
    }

    static List<String> all() {
        List<String> texts = new ArrayList<>(HAND_PICKED);
        texts.addAll(random(20240611L, 200, 300));
        return texts;
    }
}
