package dev.symbiont.io;

/**
 * Text from a file, cut for an error message: a hostile file may hold a 300,000-character name
 * or value, and the message must stay a line, not become a copy of the file.
 */
public final class Excerpt {
    /** Strings up to this many chars appear whole; longer ones show this many, then "...". */
    public static final int MAX_CHARS = 60;
    /** A message from the JSON parser is cut at this length. */
    static final int MAX_MESSAGE_CHARS = 300;

    private Excerpt() {}

    /** {@code s} in double quotes, or its first {@link #MAX_CHARS} chars and its length when longer. */
    public static String quote(String s) {
        if (s.length() <= MAX_CHARS) return '"' + s + '"';
        return '"' + head(s, MAX_CHARS) + "...\" (" + s.length() + " chars)";
    }

    /** {@code s}, or its first {@link #MAX_CHARS} chars and its length when longer; for JSON values. */
    public static String of(Object value) {
        String s = String.valueOf(value);
        return s.length() <= MAX_CHARS ? s : head(s, MAX_CHARS) + "... (" + s.length() + " chars)";
    }

    /** A parser's message, cut at {@link #MAX_MESSAGE_CHARS}. */
    public static String message(String s) {
        return s == null || s.length() <= MAX_MESSAGE_CHARS ? s : head(s, MAX_MESSAGE_CHARS) + "...";
    }

    /** The first {@code n} chars, one fewer where the n-th would split a surrogate pair. */
    private static String head(String s, int n) {
        return s.substring(0, Character.isHighSurrogate(s.charAt(n - 1)) ? n - 1 : n);
    }
}
