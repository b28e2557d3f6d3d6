package dev.symbiont.core.backend;

/**
 * What {@link java.util.ServiceLoader} finds: a cheap description of a backend that can say
 * whether it runs here before any of its heavy classes (native bindings, Vector API) load.
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
}
