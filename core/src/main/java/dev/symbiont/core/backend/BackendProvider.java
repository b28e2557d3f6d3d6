package dev.symbiont.core.backend;

/**
 * What {@link java.util.ServiceLoader} finds: a cheap description of a backend that can say
 * whether it runs here before any of its heavy classes (native bindings, Vector API) load.
 *
 * <p>A provider may offer several devices (GPUs), one backend instance per ordinal:
 * {@link Backends#get(String) Backends.get("cuda:1")} asks {@link #create(int) create(1)} once
 * and keeps the instance. A provider with one device implements {@link #create()} alone.
 */
public interface BackendProvider {
    /** Short lower-case name used for selection, e.g. "cpu", "cuda", "reference". */
    String name();

    /** Higher wins when no backend is named. */
    int priority();

    /** Must not throw, even when native libraries or JDK modules are missing. */
    Availability availability();

    /** Creates the backend; only called when {@link #availability()} says it is available. */
    Backend create();

    /**
     * How many devices this provider offers, ordinals 0 to count − 1; at least 1. Only called
     * when {@link #availability()} says it is available, and must not throw then.
     */
    default int deviceCount() { return 1; }

    /**
     * Creates the backend of device {@code ordinal} (in [0, {@link #deviceCount()})), whose
     * {@link Backend#device()} is {@code name:ordinal} when the provider has several devices.
     * The default serves the one device: ordinal 0 is {@link #create()}.
     */
    default Backend create(int ordinal) {
        if (ordinal == 0) return create();
        int count = deviceCount();
        throw new IllegalArgumentException("backend provider '" + name() + "' cannot create ordinal " + ordinal + ": "
                + (count == 1 ? "it has 1 device" : "it reports " + count + " devices but does not override create(int)"));
    }
}
