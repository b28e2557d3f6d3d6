package dev.symbiont.nn;

import java.util.List;

/**
 * A list of state-dict keys (or entries) as an error message shows it: as many as fit in
 * {@value #BUDGET} characters, each cut to {@value #LONGEST}, and how many more there are, so a
 * file with ten thousand keys, or one key of a megabyte, still gives a one-line error.
 */
public final class KeyList {
    static final int BUDGET = 600, LONGEST = 120;

    private KeyList() {}

    /** {@code [a, b, c, ... and 12 more]}. */
    public static String of(List<?> entries) {
        StringBuilder s = new StringBuilder("[");
        int shown = 0;
        for (Object entry : entries) {
            String e = String.valueOf(entry);
            e = e.length() <= LONGEST ? e : e.substring(0, LONGEST) + "... (" + e.length() + " characters)";
            if (shown > 0 && s.length() + e.length() > BUDGET) break;
            if (shown > 0) s.append(", ");
            s.append(e);
            shown++;
        }
        if (entries.size() > shown) s.append(", ... and ").append(entries.size() - shown).append(" more");
        return s.append(']').toString();
    }
}
