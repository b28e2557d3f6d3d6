package dev.symbiont.cuda;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A kernel variant chosen with a {@code -D} system property among an enum's constants (their
 * names in any case), read at every call so that a benchmark can switch it between runs.
 */
final class PropertyChoice {
    private PropertyChoice() {}

    /** The constant {@code property} names, {@code unset} when it is not set; another value is refused naming both. */
    static <E extends Enum<E>> E read(String property, E unset) {
        String raw = System.getProperty(property);
        if (raw == null) return unset;
        E[] constants = unset.getDeclaringClass().getEnumConstants();
        for (E e : constants) if (e.name().equalsIgnoreCase(raw.trim())) return e;
        String names = Arrays.stream(constants).map(e -> e.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", "));
        int last = names.lastIndexOf(", ");
        if (last >= 0) names = names.substring(0, last) + " or " + names.substring(last + 2);
        throw new IllegalArgumentException("-D" + property + " must be " + names + ", got '" + raw + "'");
    }
}
