package dev.symbiont.nn.attention;

/**
 * How RoPE's frequencies θ_j = base^(−2j/d) are changed to reach past the context a model was
 * trained on. {@link #NONE} keeps them; {@link Llama3} is Llama 3.1's.
 */
public sealed interface RopeScaling {
    /** The frequencies unchanged. */
    RopeScaling NONE = new Unscaled();

    /**
     * The inverse frequencies to rotate by, from the unscaled ones.
     *
     * @param inverseFrequencies (d/2) θ_j, j = 0..d/2−1; not modified
     * @return (d/2) the frequencies to use
     */
    double[] apply(double[] inverseFrequencies);

    /** No scaling. */
    record Unscaled() implements RopeScaling {
        @Override
        public double[] apply(double[] inverseFrequencies) { return inverseFrequencies.clone(); }
    }

    /**
     * Llama 3.1's scaling (Hugging Face's {@code rope_type: "llama3"}): with wavelength λ_j = 2π/θ_j
     * and the original context L, low frequencies (λ_j > L / lowFreqFactor) are divided by
     * {@code factor}, high ones (λ_j &lt; L / highFreqFactor) kept, and the band between interpolated:
     * <pre>
     *   s_j = (L/λ_j − lowFreqFactor) / (highFreqFactor − lowFreqFactor)
     *   θ'_j = (1 − s_j)·θ_j/factor + s_j·θ_j
     * </pre>
     *
     * @param factor                 how much longer the context gets (8 in Llama 3.1)
     * @param lowFreqFactor          1 in Llama 3.1
     * @param highFreqFactor         4 in Llama 3.1; above lowFreqFactor
     * @param originalMaxPositions   the context L trained on before scaling (8192 in Llama 3.1)
     */
    record Llama3(double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositions) implements RopeScaling {
        public Llama3 {
            if (!(factor > 0) || Double.isInfinite(factor) || !(lowFreqFactor > 0) || !(highFreqFactor > lowFreqFactor)
                    || Double.isInfinite(highFreqFactor) || originalMaxPositions <= 0) {
                throw new IllegalArgumentException("RopeScaling.Llama3: needs factor > 0, 0 < lowFreqFactor < highFreqFactor (finite) and "
                        + "originalMaxPositions > 0, got factor " + factor + ", lowFreqFactor " + lowFreqFactor + ", highFreqFactor "
                        + highFreqFactor + ", originalMaxPositions " + originalMaxPositions);
            }
        }

        @Override
        public double[] apply(double[] inverseFrequencies) {
            double lowFreqWavelength = originalMaxPositions / lowFreqFactor, highFreqWavelength = originalMaxPositions / highFreqFactor;
            double[] out = new double[inverseFrequencies.length];
            for (int j = 0; j < out.length; j++) {
                double theta = inverseFrequencies[j], wavelength = 2 * Math.PI / theta;
                if (wavelength < highFreqWavelength) {
                    out[j] = theta;                                       // high frequency: as trained
                } else if (wavelength > lowFreqWavelength) {
                    out[j] = theta / factor;                              // low frequency: stretched
                } else {
                    double smooth = (originalMaxPositions / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
                    out[j] = (1 - smooth) * theta / factor + smooth * theta;
                }
            }
            return out;
        }
    }
}
