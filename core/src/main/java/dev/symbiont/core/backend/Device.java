package dev.symbiont.core.backend;

import java.util.Locale;

/**
 * Which device a tensor lives on, as PyTorch's {@code torch.device} names it: a backend's name
 * and, for a backend with several devices, an ordinal ({@code cpu}, {@code cuda:1}).
 *
 * <p>{@code index} is {@link #NO_INDEX} when the string names no ordinal ({@code "cuda"}, like
 * PyTorch's {@code index=None}); such a device means ordinal 0 when a backend is looked up
 * ({@link #ordinal()}). As in PyTorch, {@code cuda} and {@code cuda:0} are different values that
 * select the same backend; a backend with one device reports no index ({@code cpu}).
 */
public record Device(String type, int index) {
    /** The index of a device named without an ordinal. */
    public static final int NO_INDEX = -1;

    private static final String FORMS = "expected a backend name or name:ordinal, e.g. cpu, cuda, cuda:1";

    public Device {
        if (type == null || type.isEmpty() || type.chars().anyMatch(c -> c == ':' || Character.isWhitespace(c))) {
            throw new IllegalArgumentException("device: type '" + type + "' must be a non-empty name without ':' or spaces");
        }
        if (index < NO_INDEX) {
            throw new IllegalArgumentException("device: index of " + type + " must be 0 or more, got " + index);
        }
    }

    /** A device named by its type alone ({@code cpu}, {@code cuda}). */
    public Device(String type) { this(type, NO_INDEX); }

    /**
     * Parses {@code "cpu"}, {@code "cuda"}, {@code "cuda:1"} (PyTorch's forms; case and
     * surrounding spaces are ignored). Anything else, including a negative or zero-padded
     * ordinal, is an error naming the string and the accepted forms.
     */
    public static Device parse(String spec) {
        if (spec == null) throw new IllegalArgumentException("device: null; " + FORMS);
        String s = spec.strip().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        String type = colon < 0 ? s : s.substring(0, colon);
        String ordinal = colon < 0 ? null : s.substring(colon + 1);
        if (!isName(type) || (ordinal != null && !isOrdinal(ordinal))) {
            throw new IllegalArgumentException("device '" + spec + "' is not a device string; " + FORMS);
        }
        try {
            return new Device(type, ordinal == null ? NO_INDEX : Integer.parseInt(ordinal));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device '" + spec + "': ordinal " + ordinal + " is too large", e);
        }
    }

    /** Whether the device names an ordinal ({@code cuda:0}) rather than its type alone ({@code cuda}). */
    public boolean hasIndex() { return index != NO_INDEX; }

    /** The ordinal this device selects: its index, or 0 for a type alone. */
    public int ordinal() { return hasIndex() ? index : 0; }

    /** {@code cpu} or {@code cuda:1}: the form {@link #parse} reads. */
    @Override
    public String toString() { return hasIndex() ? type + ":" + index : type; }

    /** Lower-case letter first, then letters, digits, '_' or '-' (the names providers use). */
    private static boolean isName(String s) {
        if (s.isEmpty() || s.charAt(0) < 'a' || s.charAt(0) > 'z') return false;
        return s.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-');
    }

    /** Decimal digits without a leading zero (except "0" itself), as PyTorch requires. */
    private static boolean isOrdinal(String s) {
        if (s.isEmpty() || (s.length() > 1 && s.charAt(0) == '0')) return false;
        return s.chars().allMatch(c -> c >= '0' && c <= '9');
    }
}
