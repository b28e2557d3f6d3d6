package dev.symbiont.text.hf;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Finds the added tokens of a text before the model sees it, as Hugging Face's
 * {@code AddedVocabulary.extract_and_normalize} does: first the tokens not marked normalized, in
 * the raw text; then each stretch between them is normalized and searched for the normalized
 * tokens. Matching is leftmost-longest: at the first place any token starts, the longest one
 * there wins ("&lt;|eot|&gt;" over "&lt;|eo"), and the search goes on after it.
 */
final class AddedTokens {
    private static final Pattern WORD_CHAR = Pattern.compile("\\w", Pattern.UNICODE_CHARACTER_CLASS);
    private static final Pattern SPACE = Pattern.compile("\\s", Pattern.UNICODE_CHARACTER_CLASS);

    /** A stretch of the input: an added token ({@code id >= 0}), or text for the model ({@code id == -1}). */
    record Segment(int id, String text, boolean atStart) {}

    private final Map<Integer, AddedToken> byId = new HashMap<>();
    private final Map<String, Integer> byContent = new HashMap<>();
    private final Trie raw = new Trie(), normalized = new Trie();
    private final Normalizer normalizer;

    AddedTokens(List<AddedToken> tokens, Normalizer normalizer) {
        this.normalizer = normalizer;
        for (AddedToken t : tokens) {
            if (t.content().isEmpty()) continue; // Hugging Face ignores them too
            byId.put(t.id(), t);
            byContent.put(t.content(), t.id());
            if (t.normalized()) normalized.add(normalizer.normalize(t.content()), t);
            else raw.add(t.content(), t);
        }
    }

    /** The added token with this id, or null. */
    AddedToken get(int id) { return byId.get(id); }

    /** The id of the added token with this content, or -1. */
    int id(String content) { return byContent.getOrDefault(content, -1); }

    /** The text as added tokens and normalized stretches, in order; empty stretches are left out. */
    List<Segment> split(String text) {
        List<Segment> out = new ArrayList<>();
        for (Match m : raw.find(text)) {
            if (m.token != null) {
                out.add(new Segment(m.token.id(), null, false));
                continue;
            }
            String stretch = normalizer.normalize(text.substring(m.start, m.end));
            for (Match n : normalized.find(stretch)) {
                if (n.token != null) out.add(new Segment(n.token.id(), null, false));
                else out.add(new Segment(-1, stretch.substring(n.start, n.end), m.start == 0 && n.start == 0));
            }
        }
        return out;
    }

    /** {@code [start, end)} of a searched text: an added token, or (token null) text between them. */
    private record Match(int start, int end, AddedToken token) {}

    /** The added tokens of one kind, char by char. */
    private static final class Trie {
        private final Node root = new Node();

        private static final class Node {
            final Map<Character, Node> children = new HashMap<>(4);
            AddedToken token;
        }

        void add(String content, AddedToken token) {
            Node node = root;
            for (int i = 0; i < content.length(); i++) node = node.children.computeIfAbsent(content.charAt(i), c -> new Node());
            node.token = token;
        }

        /** Hugging Face's {@code find_matches}: the matches and the stretches between them, covering {@code s}; none for "". */
        List<Match> find(String s) {
            List<Match> out = new ArrayList<>();
            if (root.children.isEmpty()) {
                if (!s.isEmpty()) out.add(new Match(0, s.length(), null));
                return out;
            }
            int covered = 0; // end of the last match, stripping included
            int i = 0;
            while (i < s.length()) {
                Node node = root;
                AddedToken best = null;
                int bestEnd = -1;
                for (int j = i; j < s.length(); j++) {
                    node = node.children.get(s.charAt(j));
                    if (node == null) break;
                    if (node.token != null) {
                        best = node.token;
                        bestEnd = j + 1;
                    }
                }
                if (best == null) {
                    i++;
                    continue;
                }
                int start = i, stop = bestEnd;
                i = bestEnd;
                if (best.singleWord() && (endsWithWordChar(s, start) || startsWithWordChar(s, stop))) continue;
                if (best.lstrip()) start = Math.max(covered, spacesBefore(s, start));
                if (best.rstrip()) stop = spacesAfter(s, stop);
                if (start < covered) continue; // would overlap the stripping of the match before
                if (start > covered) out.add(new Match(covered, start, null));
                out.add(new Match(start, stop, best));
                covered = stop;
                i = Math.max(i, stop);
            }
            if (covered < s.length()) out.add(new Match(covered, s.length(), null));
            return out;
        }
    }

    private static boolean endsWithWordChar(String s, int end) {
        return end > 0 && WORD_CHAR.matcher(Character.toString(s.codePointBefore(end))).matches();
    }

    private static boolean startsWithWordChar(String s, int start) {
        return start < s.length() && WORD_CHAR.matcher(Character.toString(s.codePointAt(start))).matches();
    }

    /** Where the whitespace that ends {@code s[0, end)} begins. */
    private static int spacesBefore(String s, int end) {
        while (end > 0 && SPACE.matcher(Character.toString(s.codePointBefore(end))).matches()) end -= Character.charCount(s.codePointBefore(end));
        return end;
    }

    /** Where the whitespace that starts {@code s[start, ...)} ends. */
    private static int spacesAfter(String s, int start) {
        while (start < s.length() && SPACE.matcher(Character.toString(s.codePointAt(start))).matches()) start += Character.charCount(s.codePointAt(start));
        return start;
    }
}
