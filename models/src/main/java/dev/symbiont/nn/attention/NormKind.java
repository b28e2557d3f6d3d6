package dev.symbiont.nn.attention;

import dev.symbiont.nn.Layer;
import dev.symbiont.nn.LayerNorm;
import dev.symbiont.nn.RMSNorm;

/** The normalisation of a pre-norm block: LayerNorm (GPT-2, ε = 1e-5) or RMSNorm (Llama, ε = 1e-6). */
public enum NormKind {
    LAYER_NORM, RMS_NORM;

    /** A fresh norm over the last dim of size {@code dim}; its parameter is {@code weight} (and {@code bias} for LayerNorm). */
    public Layer create(int dim) {
        return switch (this) {
            case LAYER_NORM -> new LayerNorm(dim);
            case RMS_NORM -> new RMSNorm(dim);
        };
    }
}
