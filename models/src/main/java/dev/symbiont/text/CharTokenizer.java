package dev.symbiont.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One token per Unicode code point: id i is the i-th smallest code point seen in the training
 * corpus. Small and transparent, for character-level models on a fixed corpus.
 *
 * <p>Saved as {@code {"kind": "char", "version": 1, "codePoints": [...]}}.
 */
public final class CharTokenizer implements Tokenizer {
    static final String KIND = "char";

    private final int[] codePoints; // strictly ascending; the index is the id

    /** A tokenizer over these code points, which must be strictly ascending and not surrogates. */
    public CharTokenizer(int[] codePoints) {
        for (int i = 0; i < codePoints.length; i++) {
            int cp = codePoints[i];
            if (!Character.isValidCodePoint(cp)) {
                throw new IllegalArgumentException("char tokenizer: entry " + i + " (" + cp + ") is not a Unicode code point");
            }
            if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                // A lone surrogate would decode to a string that re-encodes as another character.
                throw new IllegalArgumentException("char tokenizer: entry " + i + " (" + describe(cp)
                        + ") is a surrogate, half of a UTF-16 pair, not a character");
            }
            if (i > 0 && cp <= codePoints[i - 1]) {
                throw new IllegalArgumentException("char tokenizer: code points must be strictly ascending, but entry "
                        + i + " (" + describe(cp) + ") follows " + describe(codePoints[i - 1]));
            }
        }
        this.codePoints = codePoints.clone();
    }

    /** The sorted distinct code points of {@code corpus} as the vocabulary. */
    public static CharTokenizer fit(String corpus) {
        return new CharTokenizer(corpus.codePoints().distinct().sorted().toArray());
    }

    /** Reads a file written by {@link #save(Path)}. */
    public static CharTokenizer load(Path file) throws IOException {
        return fromJson(file, TokenizerJson.read(file, KIND));
    }

    /** The vocabulary: the code point of each id. */
    public int[] codePoints() { return codePoints.clone(); }

    @Override
    public int vocabSize() { return codePoints.length; }

    /**
     * @throws IllegalArgumentException naming the first character outside the vocabulary and
     *                                  its index (in chars) in {@code text}
     */
    @Override
    public int[] encode(String text) {
        int[] ids = new int[text.codePointCount(0, text.length())];
        int n = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            int id = Arrays.binarySearch(codePoints, cp);
            if (id < 0) {
                throw new IllegalArgumentException("char tokenizer: character " + describe(cp) + " at index " + i
                        + " is not in the vocabulary of " + codePoints.length + " characters");
            }
            ids[n++] = id;
            i += Character.charCount(cp);
        }
        return ids;
    }

    @Override
    public String decode(int[] ids) {
        StringBuilder text = new StringBuilder(ids.length);
        for (int i = 0; i < ids.length; i++) {
            int id = ids[i];
            if (id < 0 || id >= codePoints.length) {
                throw new IllegalArgumentException("char tokenizer: id " + id + " at position " + i
                        + " is outside the vocabulary [0, " + codePoints.length + ")");
            }
            text.appendCodePoint(codePoints[id]);
        }
        return text.toString();
    }

    @Override
    public void save(Path file) throws IOException {
        ObjectNode root = TokenizerJson.envelope(KIND);
        ArrayNode array = root.putArray("codePoints");
        for (int cp : codePoints) array.add(cp);
        TokenizerJson.write(file, root);
    }

    static CharTokenizer fromJson(Path file, ObjectNode root) throws IOException {
        JsonNode array = TokenizerJson.array(file, root, "codePoints");
        int[] cps = new int[array.size()];
        for (int i = 0; i < cps.length; i++) cps[i] = TokenizerJson.intAt(file, array.get(i), "codePoints", i);
        try {
            return new CharTokenizer(cps);
        } catch (IllegalArgumentException e) {
            throw TokenizerJson.malformed(file, "codePoints: " + e.getMessage());
        }
    }

    /** 'x' (U+0078), leaving out the glyph of invisible characters such as a newline. */
    static String describe(int cp) {
        String code = String.format("U+%04X", cp);
        boolean visible = Character.isValidCodePoint(cp) && !Character.isISOControl(cp)
                && !Character.isWhitespace(cp) && Character.isDefined(cp) && Character.getType(cp) != Character.SURROGATE;
        return visible ? "'" + Character.toString(cp) + "' (" + code + ")" : code;
    }
}
