package dev.symbiont.nn;

import java.util.List;

/**
 * A list of state-dict keys (or entries) as an error message shows it: at most
 * {@value #SHOWN} of them, each cut to {@value #LONGEST} characters, and how many more there are,
 * so a file with ten thousand keys, or one key of a megabyte, still gives a one-line error.
 */
public final class KeyList {
    static final int SHOWN = 8, LONGEST = 120;

    private KeyList() {}

    /** {@code [a, b, c, ... and 12 more]}. */
    public static String of(List<?> entries) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < Math.min(SHOWN, entries.size()); i++) {
            if (i > 0) s.append(", ");
            String e = String.valueOf(entries.get(i));
            s.append(e.length() <= LONGEST ? e : e.substring(0, LONGEST) + "... (" + e.length() + " characters)");
        }
        if (entries.size() > SHOWN) s.append(", ... and ").append(entries.size() - SHOWN).append(" more");
        return s.append(']').toString();
    }
}
