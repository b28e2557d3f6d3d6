package dev.symbiont.core;

import java.util.Locale;

/**
 * A two-valued setting: a system property, else an environment variable, else off. The
 * property is read on every call, so a test can set it; the environment is read once, since it
 * cannot change while the JVM runs — a switch asked on every op costs one property lookup.
 * Values are case- and space-insensitive; any other value is an error naming both sources.
 */
public final class Switch {
    private final String property, environment, on, onMeaning, off, offMeaning;
    private final String environmentValue;

    /**
     * @param onMeaning  what {@code on} does, e.g. "to poison released storages"
     * @param offMeaning what {@code off} does, or "" when the word says it
     */
    public Switch(String property, String environment, String on, String onMeaning, String off, String offMeaning) {
        this.property = property;
        this.environment = environment;
        this.on = on;
        this.onMeaning = onMeaning;
        this.off = off;
        this.offMeaning = offMeaning;
        this.environmentValue = System.getenv(environment);
    }

    public String property() { return property; }

    public String environment() { return environment; }

    /** Whether the property (or, unset, the environment variable) says {@code on}. */
    public boolean isOn() {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) value = environmentValue;
        if (value == null || value.isBlank()) return false;
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (v.equals(on)) return true;
        if (v.equals(off)) return false;
        throw new IllegalArgumentException(property + " (or " + environment + ") is '" + value + "'; use '" + on + "' "
                + onMeaning + " or '" + off + "'" + (offMeaning.isEmpty() ? "" : " " + offMeaning));
    }
}
