package dev.symbiont.text.hf;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a split does with the delimiters it finds (Hugging Face's {@code SplitDelimiterBehavior}):
 * for "a-b" split on "-", Removed gives a|b, Isolated a|-|b, MergedWithPrevious a-|b,
 * MergedWithNext a|-b, Contiguous a|-|b with runs of delimiters kept together.
 */
enum SplitBehavior {
    REMOVED, ISOLATED, MERGED_WITH_PREVIOUS, MERGED_WITH_NEXT, CONTIGUOUS;

    /** A stretch {@code [start, end)} of a text, a delimiter or not. */
    record Segment(int start, int end, boolean match) {}

    /** The JSON name, e.g. "MergedWithNext". */
    static SplitBehavior parse(String name) {
        return switch (name) {
            case "Removed" -> REMOVED;
            case "Isolated" -> ISOLATED;
            case "MergedWithPrevious" -> MERGED_WITH_PREVIOUS;
            case "MergedWithNext" -> MERGED_WITH_NEXT;
            case "Contiguous" -> CONTIGUOUS;
            default -> null;
        };
    }

    /** The matches of {@code pattern} and the stretches between them, covering {@code text}; nothing for "". */
    static List<Segment> segments(Pattern pattern, String text) {
        List<Segment> out = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        int previous = 0;
        while (m.find()) {
            if (m.start() > previous) out.add(new Segment(previous, m.start(), false));
            out.add(new Segment(m.start(), m.end(), true));
            previous = m.end();
        }
        if (previous < text.length()) out.add(new Segment(previous, text.length(), false));
        return out;
    }

    /** Each occurrence of the char {@code delimiter} as a match, and the stretches between. */
    static List<Segment> segments(char delimiter, String text) {
        List<Segment> out = new ArrayList<>();
        int previous = 0;
        for (int i = text.indexOf(delimiter); i >= 0; i = text.indexOf(delimiter, i + 1)) {
            if (i > previous) out.add(new Segment(previous, i, false));
            out.add(new Segment(i, i + 1, true));
            previous = i + 1;
        }
        if (previous < text.length()) out.add(new Segment(previous, text.length(), false));
        return out;
    }

    /** The pieces of {@code piece} given its segments; only a piece that starts the parent keeps {@code atStart}. */
    void split(Piece piece, List<Segment> segments, List<Piece> out) {
        String text = piece.text();
        for (Segment s : group(segments)) {
            if (s.end() > s.start()) out.add(new Piece(text.substring(s.start(), s.end()), piece.atStart() && s.start() == 0));
        }
    }

    /** The segments joined as this behaviour says, delimiters to drop already left out. */
    private List<Segment> group(List<Segment> segments) {
        List<Segment> out = new ArrayList<>(segments.size());
        switch (this) {
            case REMOVED -> { for (Segment s : segments) if (!s.match()) out.add(s); }
            case ISOLATED -> out.addAll(segments);
            case CONTIGUOUS -> {
                boolean previousMatch = false;
                for (Segment s : segments) {
                    if (s.match() == previousMatch && !out.isEmpty()) extendLast(out, s.end());
                    else out.add(s);
                    previousMatch = s.match();
                }
            }
            case MERGED_WITH_PREVIOUS -> {
                boolean previousMatch = false;
                for (Segment s : segments) {
                    if (s.match() && !previousMatch && !out.isEmpty()) extendLast(out, s.end());
                    else out.add(s);
                    previousMatch = s.match();
                }
            }
            case MERGED_WITH_NEXT -> {
                boolean previousMatch = false; // walking backwards: "previous" is the segment after
                for (int i = segments.size() - 1; i >= 0; i--) {
                    Segment s = segments.get(i);
                    if (s.match() && !previousMatch && !out.isEmpty()) {
                        Segment last = out.removeLast();
                        out.add(new Segment(s.start(), last.end(), false));
                    } else {
                        out.add(s);
                    }
                    previousMatch = s.match();
                }
                java.util.Collections.reverse(out);
            }
        }
        return out;
    }

    private static void extendLast(List<Segment> out, int end) {
        Segment last = out.removeLast();
        out.add(new Segment(last.start(), end, false));
    }
}
