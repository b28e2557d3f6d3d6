package dev.symbiont.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Seeded mutations of a file: bit flips, special bytes, truncation, deleted and repeated ranges,
 * edits of the JSON it contains (numbers, strings, keys, nesting) and splices with another corpus
 * file, mostly one at a time (a file that still loads tests the consistency checks), sometimes
 * stacked four deep. Every choice comes from the {@link Random} passed in, so a case
 * is reproduced by its seed alone.
 */
final class Mutator {
    private static final byte[] SPECIAL_BYTES = {0, (byte) 0xFF, 0x7F, (byte) 0x80, (byte) 0xC0, (byte) 0xED, (byte) 0xEF,
            (byte) 0xF4, (byte) 0xFE, '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', '0', '9', '-', 'e', '.'};
    private static final String[] NUMBERS = {"0", "-0", "1", "-1", "255", "256", "257", "1023", "1024", "1025", "55296",
            "56320", "1114111", "1114112", "2147483647", "2147483648", "-2147483648", "4294967297", "-4294967295",
            "9223372036854775807", "9223372036854775808", "18446744073709551616", "1e308", "1e999999", "1.5", "1.0",
            "00", "1E2", "99999999999999999999999999999999"};
    private static final String[] VALUES = {"null", "true", "[]", "{}", "\"\"", "[[]]", "[0]", "[0,0]", "{\"a\":1}",
            "\"\\u0000\"", "\"\\uD800\"", "\"\\uDC00\\uD800\"", "\"\u00e9\u20ac\ud83d\ude00\""};
    private static final Pattern NUMBER = Pattern.compile("-?\\d++(\\.\\d++)?+([eE][-+]?\\d++)?+");

    private final List<byte[]> pool;
    private final List<FuzzTarget.Mutation> formatMutations;

    /** {@code pool}: the corpus, for splices; the target adds its own edits. */
    Mutator(List<byte[]> pool, FuzzTarget target) {
        this.pool = pool;
        this.formatMutations = target.formatMutations((in, rng) -> generic(in, rng, 11));
    }

    byte[] mutate(byte[] input, Random rng) {
        byte[] out = input;
        int rounds = rng.nextInt(4) == 0 ? 2 + rng.nextInt(3) : 1;
        for (int i = 0; i < rounds; i++) out = once(out, rng);
        return out;
    }

    private byte[] once(byte[] in, Random rng) {
        int kinds = 12 + (formatMutations.isEmpty() ? 0 : 4);
        int kind = rng.nextInt(kinds);
        if (kind >= 12) return formatMutations.get(rng.nextInt(formatMutations.size())).apply(in, rng);
        return generic(in, rng, 12);
    }

    /** One of the first {@code kinds} generic edits (11 leaves out the splice, which mixes in whole files). */
    private byte[] generic(byte[] in, Random rng, int kinds) {
        int kind = rng.nextInt(kinds);
        if (in.length == 0 && kind < 6) return new byte[] {SPECIAL_BYTES[rng.nextInt(SPECIAL_BYTES.length)]};
        return switch (kind) {
            case 0 -> flipBits(in, rng);
            case 1 -> setByte(in, rng);
            case 2 -> Arrays.copyOf(in, rng.nextInt(in.length)); // truncate
            case 3 -> deleteRange(in, rng);
            case 4 -> repeatRange(in, rng);
            case 5 -> insert(in, rng.nextInt(in.length + 1), randomBytes(rng));
            case 6 -> replace(in, numbers(latin1(in)), rng, m -> utf8(NUMBERS[rng.nextInt(NUMBERS.length)]));
            case 7 -> replace(in, strings(latin1(in), false), rng, m -> utf8(longString(rng)));
            case 8 -> replace(in, rng.nextBoolean() ? numbers(latin1(in)) : strings(latin1(in), false), rng,
                    m -> utf8(VALUES[rng.nextInt(VALUES.length)]));
            case 9 -> replace(in, strings(latin1(in), true), rng, m -> (m + "," + m).getBytes(StandardCharsets.ISO_8859_1)); // a repeated key
            case 10 -> nest(in, rng);
            default -> splice(in, rng);
        };
    }

    private static byte[] flipBits(byte[] in, Random rng) {
        byte[] out = in.clone();
        for (int n = 1 + rng.nextInt(8); n > 0; n--) out[rng.nextInt(out.length)] ^= (byte) (1 << rng.nextInt(8));
        return out;
    }

    private static byte[] setByte(byte[] in, Random rng) {
        byte[] out = in.clone();
        out[rng.nextInt(out.length)] = SPECIAL_BYTES[rng.nextInt(SPECIAL_BYTES.length)];
        return out;
    }

    private static byte[] deleteRange(byte[] in, Random rng) {
        int from = rng.nextInt(in.length), to = from + 1 + rng.nextInt(Math.min(in.length - from, 64));
        return concat(slice(in, 0, from), slice(in, to, in.length));
    }

    private static byte[] repeatRange(byte[] in, Random rng) {
        int from = rng.nextInt(in.length), to = from + 1 + rng.nextInt(Math.min(in.length - from, 64));
        byte[] piece = slice(in, from, to);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(slice(in, 0, to));
        for (int n = rng.nextInt(rng.nextBoolean() ? 4 : 2000); n > 0; n--) out.writeBytes(piece);
        out.writeBytes(slice(in, to, in.length));
        return out.toByteArray();
    }

    private static byte[] randomBytes(Random rng) {
        byte[] b = new byte[1 + rng.nextInt(16)];
        for (int i = 0; i < b.length; i++) b[i] = rng.nextBoolean() ? SPECIAL_BYTES[rng.nextInt(SPECIAL_BYTES.length)] : (byte) rng.nextInt();
        return b;
    }

    /** A string value 0 to 100,000 chars long, sometimes with escapes, non-ASCII or lone surrogates. */
    private static String longString(Random rng) {
        int n = rng.nextInt(4) == 0 ? rng.nextInt(100_000) : rng.nextInt(40);
        String unit = switch (rng.nextInt(5)) {
            case 0 -> "\\u0041";
            case 1 -> "\u00e9";
            case 2 -> "\\uD800";
            case 3 -> "\\\"";
            default -> "x";
        };
        return "\"" + unit.repeat(Math.max(1, n / unit.length())) + "\"";
    }

    /** Wraps a random value (or inserts at a random place) 1 to 5,000 levels of [ or {"a": nesting. */
    private static byte[] nest(byte[] in, Random rng) {
        int depth = 1 + rng.nextInt(rng.nextBoolean() ? 10 : 5000);
        boolean arrays = rng.nextBoolean();
        String open = arrays ? "[" : "{\"a\":", close = arrays ? "]" : "}";
        int at = rng.nextInt(in.length + 1);
        String tail = rng.nextBoolean() ? close.repeat(depth) : ""; // sometimes left unclosed
        return insert(in, at, (open.repeat(depth) + "0" + tail).getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Another corpus file's tail after this one's head, cut at random points. */
    private byte[] splice(byte[] in, Random rng) {
        byte[] other = pool.get(rng.nextInt(pool.size()));
        return concat(slice(in, 0, rng.nextInt(in.length + 1)), slice(other, rng.nextInt(other.length + 1), other.length));
    }

    /** Where the numbers are in {@code text}, as [start, end) pairs. */
    private static List<int[]> numbers(String text) {
        List<int[]> spans = new ArrayList<>();
        Matcher m = NUMBER.matcher(text);
        while (m.find() && spans.size() < 10_000) spans.add(new int[] {m.start(), m.end()});
        return spans;
    }

    /**
     * Where the JSON strings are, or with {@code members} the {@code "key": value} pairs (value a
     * string, a bracket-free array or a scalar). Scanned by hand: a regular expression recurses
     * once per repetition and overflows the stack on a long string.
     */
    private static List<int[]> strings(String text, boolean members) {
        List<int[]> spans = new ArrayList<>();
        for (int i = text.indexOf('"'); i >= 0 && spans.size() < 10_000; ) {
            int end = stringEnd(text, i);
            if (end < 0) break;
            if (!members) {
                spans.add(new int[] {i, end});
            } else {
                int v = skipSpace(text, end);
                if (v < text.length() && text.charAt(v) == ':') {
                    int valueEnd = valueEnd(text, skipSpace(text, v + 1));
                    if (valueEnd > 0) spans.add(new int[] {i, valueEnd});
                }
            }
            i = text.indexOf('"', end);
        }
        return spans;
    }

    /** The index after the string starting with the quote at {@code start}, or -1 if unterminated. */
    private static int stringEnd(String text, int start) {
        for (int i = start + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') i++;
            else if (c == '"') return i + 1;
        }
        return -1;
    }

    private static int skipSpace(String text, int i) {
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) i++;
        return i;
    }

    private static int valueEnd(String text, int i) {
        if (i >= text.length()) return -1;
        char c = text.charAt(i);
        if (c == '"') return stringEnd(text, i);
        if (c == '[') {
            int close = text.indexOf(']', i);
            int open = text.indexOf('[', i + 1);
            return close < 0 || (open >= 0 && open < close) ? -1 : close + 1;
        }
        int j = i;
        while (j < text.length() && ",{}[]".indexOf(text.charAt(j)) < 0) j++;
        return j > i ? j : -1;
    }

    /** Replaces one random span (of the Latin-1 reading, so chars are bytes) with {@code replacement}'s bytes. */
    private static byte[] replace(byte[] in, List<int[]> spans, Random rng, Function<String, byte[]> replacement) {
        if (spans.isEmpty()) return in;
        int[] hit = spans.get(rng.nextInt(spans.size()));
        String text = latin1(Arrays.copyOfRange(in, hit[0], hit[1]));
        return concat(slice(in, 0, hit[0]), replacement.apply(text), slice(in, hit[1], in.length));
    }

    private static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] insert(byte[] in, int at, byte[] piece) {
        return concat(slice(in, 0, at), piece, slice(in, at, in.length));
    }

    static byte[] slice(byte[] in, int from, int to) {
        return Arrays.copyOfRange(in, from, to);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }
}
