package dev.symbiont.core.backend;

/** Whether a backend can run here, and if not, why. */
public record Availability(boolean available, String reason) {
    public static Availability yes() { return new Availability(true, "available"); }

    public static Availability no(String reason) { return new Availability(false, reason); }
}
