package dev.symbiont.models;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;

/**
 * How {@link PretrainedModels#load} reads a model directory.
 *
 * @param allowNonFinite load weights holding NaN or infinite values instead of refusing them
 * @param backend        where the weights go; null for {@link Backends#current()} at load time
 * @param float32        every weight widened to float32; otherwise (transformers' {@code torch_dtype="auto"}) a
 *                       bfloat16 checkpoint's Linear and Embedding matrices stay bfloat16, widened where they compute
 */
public record LoadOptions(boolean allowNonFinite, Backend backend, boolean float32) {
    /** Non-finite weights refused, the current backend, bfloat16 matrices kept as stored. */
    public static LoadOptions defaults() { return new LoadOptions(false, null, false); }

    public LoadOptions allowingNonFinite(boolean on) { return new LoadOptions(on, backend, float32); }

    public LoadOptions on(Backend b) { return new LoadOptions(allowNonFinite, b, float32); }

    /** Widens every weight to float32 ({@code torch_dtype=torch.float32}): full-precision training from the weights. */
    public LoadOptions inFloat32(boolean on) { return new LoadOptions(allowNonFinite, backend, on); }

    /** The backend the weights go to. */
    public Backend target() { return backend != null ? backend : Backends.current(); }
}
