package dev.symbiont.nn.attention;

import dev.symbiont.nn.Layer;
import dev.symbiont.nn.LayerNorm;
import dev.symbiont.nn.RMSNorm;

/** The normalisation of a pre-norm block: LayerNorm (GPT-2, ε = 1e-5) or RMSNorm (Llama, ε = 1e-6 by default; Llama 2 uses 1e-5). */
public enum NormKind {
    LAYER_NORM, RMS_NORM;

    /** ε when none is given: torch.nn.LayerNorm's 1e-5, and 1e-6 for RMSNorm (Llama's reference code). */
    public double defaultEps() {
        return switch (this) {
            case LAYER_NORM -> 1e-5;
            case RMS_NORM -> 1e-6;
        };
    }

    /** A fresh norm over the last dim of size {@code dim} with the default ε. */
    public Layer create(int dim) { return create(dim, defaultEps()); }

    /** A fresh norm over the last dim of size {@code dim}; its parameter is {@code weight} (and {@code bias} for LayerNorm). */
    public Layer create(int dim, double eps) {
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException(this + ": eps must be finite and > 0, got " + eps);
        return switch (this) {
            case LAYER_NORM -> new LayerNorm(new int[] {dim}, eps, true);
            case RMS_NORM -> new RMSNorm(dim, eps);
        };
    }
}
