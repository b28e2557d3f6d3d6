package dev.symbiont.models;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;

/**
 * How {@link PretrainedModels#load} reads a model directory.
 *
 * @param allowNonFinite load weights holding NaN or infinite values instead of refusing them
 * @param backend        where the weights go; null for {@link Backends#current()} at load time
 */
public record LoadOptions(boolean allowNonFinite, Backend backend) {
    /** Non-finite weights refused, the current backend. */
    public static LoadOptions defaults() { return new LoadOptions(false, null); }

    public LoadOptions allowingNonFinite(boolean on) { return new LoadOptions(on, backend); }

    public LoadOptions on(Backend b) { return new LoadOptions(allowNonFinite, b); }

    /** The backend the weights go to. */
    public Backend target() { return backend != null ? backend : Backends.current(); }
}
