package dev.symbiont.core.heap;

import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Switch;

/**
 * The debug mode that makes a use after {@link Storage#release()} an error instead of a silent
 * read of recycled memory (what it is on a GPU). While it is on, releasing a {@link HeapStorage}
 * poisons it — floats become NaN, integers a sentinel ({@code MIN_VALUE}), halves NaN — and
 * marks it released, and every primitive of the heap backends that is handed it throws
 * {@code "<op>: storage used after release()"}. Off, a release costs what it always did and
 * nothing is marked.
 *
 * <p>Turned on by {@code -Dsymbiont.debug.release=poison}, by the environment variable
 * {@code SYMBIONT_DEBUG_RELEASE=poison} (the property read at each release, so a test can set it), or
 * for the releases one thread makes in a block by {@code try (var s = ReleaseCheck.poison())}.
 * The value {@code off} (or none) leaves it off; anything else throws naming the property.
 */
public final class ReleaseCheck {
    public static final String PROPERTY = "symbiont.debug.release";
    public static final String ENVIRONMENT = "SYMBIONT_DEBUG_RELEASE";
    public static final String POISON = "poison";
    public static final String OFF = "off";

    private static final Switch SWITCH = new Switch(PROPERTY, ENVIRONMENT, POISON, "to poison released storages", OFF, "");
    private static final ThreadLocal<int[]> SCOPES = ThreadLocal.withInitial(() -> new int[1]);

    private ReleaseCheck() {}

    /** Whether a release made now on this thread poisons the storage. */
    public static boolean poisoning() {
        return SCOPES.get()[0] > 0 || SWITCH.isOn();
    }

    /** Poisons the storages this thread releases until the scope closes. */
    public static Scope poison() {
        int[] depth = SCOPES.get();
        depth[0]++;
        return () -> depth[0]--;
    }

    /** The error a primitive throws when handed a released storage. */
    static IllegalStateException usedAfterRelease(String op, Storage storage) {
        return new IllegalStateException(op + ": storage used after release() (" + storage.dtype() + ", "
                + storage.size() + " elements); a released tensor must not be read or written again");
    }
}
