package dev.symbiont.text.hf;

import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Compiles the regular expressions of tokenizer.json, written for Oniguruma (Ruby syntax, as
 * the Rust {@code tokenizers} crate compiles them), to {@link java.util.regex.Pattern}s that match
 * the same text.
 *
 * <p>Flags: Unicode classes ({@code \s} is White_Space, {@code \w} and {@code \d} are Unicode, as
 * in Oniguruma on UTF-8), only {@code \n} ends a line, and {@code ^}/{@code $} match at every line
 * as Ruby's always do. Rewritten: {@code \h}/{@code \H} (hex digits in Oniguruma, horizontal
 * space in Java), {@code \v} (only the vertical tab in Oniguruma), {@code \p{^X}}, POSIX brackets
 * {@code [:alpha:]} (Java would read them as a set of letters), and the inline option {@code m}
 * (Ruby's dot-all, Java's {@code s}). Constructs with no Java twin ({@code \K}, absent operators,
 * conditionals) are refused, never approximated.
 */
final class OnigurumaPatterns {
    static final int FLAGS = Pattern.UNICODE_CHARACTER_CLASS | Pattern.UNIX_LINES | Pattern.MULTILINE;
    private static final String HEX = "0-9a-fA-F";
    private static final Map<String, String> POSIX = Map.ofEntries(
            Map.entry("alpha", "Alpha"), Map.entry("digit", "Digit"), Map.entry("alnum", "Alnum"),
            Map.entry("upper", "Upper"), Map.entry("lower", "Lower"), Map.entry("space", "Space"),
            Map.entry("punct", "Punct"), Map.entry("xdigit", "XDigit"), Map.entry("cntrl", "Cntrl"),
            Map.entry("blank", "Blank"), Map.entry("graph", "Graph"), Map.entry("print", "Print"));

    private OnigurumaPatterns() {}

    /** Thrown for a pattern this class cannot compile faithfully; the message says which construct. */
    static final class UnsupportedPatternException extends Exception {
        UnsupportedPatternException(String message) { super(message); }
    }

    static Pattern compile(String onig) throws UnsupportedPatternException {
        String java = translate(onig);
        try {
            return Pattern.compile(java, FLAGS);
        } catch (PatternSyntaxException e) {
            throw new UnsupportedPatternException("java.util.regex cannot compile it: " + dev.symbiont.io.Excerpt.of(e.getDescription())
                    + " near index " + e.getIndex());
        }
    }

    /** The literal text {@code s} as a pattern (a Split or Replace with a "String" pattern). */
    static Pattern literal(String s) {
        return Pattern.compile(Pattern.quote(s), FLAGS);
    }

    static String translate(String p) throws UnsupportedPatternException {
        StringBuilder out = new StringBuilder(p.length() + 16);
        int classDepth = 0;
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '\\' && i + 1 < p.length()) {
                char e = p.charAt(++i);
                switch (e) {
                    case 'h' -> out.append(classDepth > 0 ? HEX : "[" + HEX + "]");
                    case 'H' -> {
                        if (classDepth > 0) throw new UnsupportedPatternException("\\H inside a character class");
                        out.append("[^" + HEX + "]");
                    }
                    case 'v' -> out.append("\\x0B");
                    case 'K' -> throw new UnsupportedPatternException("\\K (keep) has no java.util.regex equivalent");
                    case 'p', 'P' -> i = property(p, i, e, out);
                    default -> out.append('\\').append(e);
                }
            } else if (c == '[') {
                if (classDepth > 0 && p.startsWith("[:", i)) {
                    i = posix(p, i, out);
                } else {
                    classDepth++;
                    out.append(c);
                    if (i + 1 < p.length() && p.charAt(i + 1) == '^') out.append(p.charAt(++i));
                    // A ']' right after '[' or '[^' is a literal in both syntaxes; Java needs it escaped.
                    if (i + 1 < p.length() && p.charAt(i + 1) == ']') { out.append("\\]"); i++; }
                }
            } else if (c == ']' && classDepth > 0) {
                classDepth--;
                out.append(c);
            } else if (c == '(' && classDepth == 0 && p.startsWith("(?", i)) {
                i = group(p, i, out);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** {@code \p{X}}, {@code \p{^X}} (negated in Oniguruma), from the letter after the backslash; returns the last index used. */
    private static int property(String p, int i, char letter, StringBuilder out) {
        if (i + 2 < p.length() && p.charAt(i + 1) == '{' && p.charAt(i + 2) == '^') {
            out.append('\\').append(letter == 'p' ? 'P' : 'p').append('{');
            return i + 2;
        }
        out.append('\\').append(letter);
        return i;
    }

    /** A POSIX bracket {@code [:name:]} or {@code [:^name:]} inside a class; returns the last index used. */
    private static int posix(String p, int i, StringBuilder out) throws UnsupportedPatternException {
        int end = p.indexOf(":]", i + 2);
        if (end < 0) throw new UnsupportedPatternException("an unclosed POSIX bracket at index " + i);
        String name = p.substring(i + 2, end);
        boolean negated = name.startsWith("^");
        if (name.equals("word") || name.equals("^word")) {
            out.append(negated ? "\\W" : "\\w");
            return end + 1;
        }
        String java = POSIX.get(negated ? name.substring(1) : name);
        if (java == null) throw new UnsupportedPatternException("the POSIX bracket " + dev.symbiont.io.Excerpt.quote("[:" + name + ":]"));
        out.append(negated ? "\\P{" : "\\p{").append(java).append('}');
        return end + 1;
    }

    /** An extension group {@code (?...}; rewrites Ruby's option m, refuses what Java lacks; returns the last index used. */
    private static int group(String p, int i, StringBuilder out) throws UnsupportedPatternException {
        int j = i + 2;
        if (j < p.length() && (p.charAt(j) == '~' || p.charAt(j) == '(')) {
            throw new UnsupportedPatternException((p.charAt(j) == '~' ? "an absent operator" : "a conditional")
                    + " at index " + i);
        }
        int k = j;
        while (k < p.length() && "imx-".indexOf(p.charAt(k)) >= 0) k++;
        if (k > j && k < p.length() && (p.charAt(k) == ':' || p.charAt(k) == ')')) {
            out.append("(?").append(p, j, k).append(p.charAt(k));
            for (int n = out.length() - (k - j) - 1; n < out.length() - 1; n++) {
                if (out.charAt(n) == 'm') out.setCharAt(n, 's');
            }
            return k;
        }
        out.append("(?");
        return i + 1;
    }
}
