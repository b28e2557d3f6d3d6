package dev.symbiont.peft;

import dev.symbiont.models.ModelLayout;
import dev.symbiont.models.hf.KeyMap;

/**
 * A model's module names as its adapters name them: for a Hugging Face model transformers'
 * ({@code model.layers.0.self_attn.q_proj}, the module whose Symbiont path is
 * {@code blocks.0.attn.q_proj}), for Symbiont's own models Symbiont's. A module's name is its
 * weight's key without {@code .weight}, mapped by the layout's {@link KeyMap}.
 */
public final class ModuleNames {
    /** Symbiont's own names: a model {@code symbiont train} wrote. */
    public static final ModuleNames SYMBIONT = new ModuleNames(null);
    private static final String WEIGHT = ".weight";

    private final KeyMap map;

    private ModuleNames(KeyMap map) { this.map = map; }

    /** The names of the layout a model was loaded from. */
    public static ModuleNames of(ModelLayout layout) {
        KeyMap names = layout.moduleNames();
        return names == null ? SYMBIONT : new ModuleNames(names);
    }

    /** The name an adapter uses for the module at Symbiont path {@code modulePath}; null when the layout has none for it. */
    public String peftName(String modulePath) {
        if (map == null) return modulePath;
        KeyMap.Mapped m = map.toHf(modulePath + WEIGHT);
        return m == null ? null : strip(m.key());
    }

    /** The Symbiont path of the module an adapter calls {@code peftName}; null when the layout maps no module to it. */
    public String modulePath(String peftName) {
        if (map == null) return peftName;
        KeyMap.Mapped m = map.toSymbiont(peftName + WEIGHT);
        return m == null ? null : strip(m.key());
    }

    /** Whether the layout stores the module's weight transposed (GPT-2's Conv1D): PEFT's {@code fan_in_fan_out}. */
    public boolean conv1d(String modulePath) {
        if (map == null) return false;
        KeyMap.Mapped m = map.toHf(modulePath + WEIGHT);
        return m != null && m.transposed();
    }

    private static String strip(String key) { return key.substring(0, key.length() - WEIGHT.length()); }
}
