package dev.symbiont.data.tasks;

import dev.symbiont.core.Generator;
import dev.symbiont.data.Dataset;
import dev.symbiont.data.Seeds;

import java.util.Objects;

/**
 * Linear regression with a known answer: x ~ N(0, I_d), y = x·w + b + noiseStd·ε with
 * ε ~ N(0, 1). The weights w ~ N(0, 1/d) (so x·w has unit variance) and the bias b ~ N(0, 1)
 * are drawn once from the seed; example i is a pure function of (seed, i). A model that fits
 * reaches a mean squared error of noiseStd².
 */
public final class RegressionTask implements Dataset<RegressionExample> {
    // Stream for w and b, apart from the example streams 0..size-1.
    private static final long WEIGHT_STREAM = -1;

    private final int dim;
    private final float noiseStd;
    private final int size;
    private final long seed;
    private final float[] weights;
    private final float bias;

    /**
     * @param dim      features per example, at least 1
     * @param noiseStd standard deviation of the added noise, >= 0
     * @param size     examples in the dataset
     */
    public RegressionTask(int dim, float noiseStd, int size, long seed) {
        if (dim <= 0) throw new IllegalArgumentException("regression: dim must be positive, got " + dim);
        if (!(noiseStd >= 0) || Float.isInfinite(noiseStd)) {
            throw new IllegalArgumentException("regression: noiseStd must be finite and >= 0, got " + noiseStd);
        }
        if (size < 0) throw new IllegalArgumentException("regression: size must be >= 0, got " + size);
        this.dim = dim;
        this.noiseStd = noiseStd;
        this.size = size;
        this.seed = seed;
        Generator random = Seeds.generator(seed, WEIGHT_STREAM);
        this.weights = new float[dim];
        double scale = 1 / Math.sqrt(dim);
        for (int i = 0; i < dim; i++) weights[i] = (float) (random.nextGaussian() * scale);
        this.bias = (float) random.nextGaussian();
    }

    public int dim() { return dim; }
    public float noiseStd() { return noiseStd; }

    /** The true weights w, (dim). */
    public float[] weights() { return weights.clone(); }

    /** The true bias b. */
    public float bias() { return bias; }

    @Override
    public int size() { return size; }

    @Override
    public RegressionExample get(int index) {
        Objects.checkIndex(index, size);
        Generator random = Seeds.generator(seed, index);
        float[] x = new float[dim];
        double y = bias;
        for (int i = 0; i < dim; i++) {
            x[i] = (float) random.nextGaussian();
            y += (double) x[i] * weights[i];
        }
        y += noiseStd * random.nextGaussian();
        return new RegressionExample(x, (float) y);
    }
}
