package dev.symbiont.data.tasks;

import dev.symbiont.core.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One (x, y) pair of a regression task.
 *
 * @param x (dim) features
 * @param y the target
 */
public record RegressionExample(float[] x, float y) {
    public RegressionExample {
        Objects.requireNonNull(x, "x");
    }

    /**
     * Stacks examples of equal dimension into a batch.
     *
     * @return x: (batch, dim) float32, y: (batch, 1) float32
     */
    public static RegressionBatch collate(List<RegressionExample> examples) {
        if (examples.isEmpty()) throw new IllegalArgumentException("collate: no examples");
        int batch = examples.size();
        int dim = examples.getFirst().x.length;
        float[] x = new float[batch * dim];
        float[] y = new float[batch];
        for (int b = 0; b < batch; b++) {
            RegressionExample e = examples.get(b);
            if (e.x.length != dim) {
                throw new IllegalArgumentException("collate: example " + b + " has " + e.x.length
                        + " features but example 0 has " + dim);
            }
            System.arraycopy(e.x, 0, x, b * dim, dim);
            y[b] = e.y;
        }
        return new RegressionBatch(Tensor.fromArray(x, batch, dim), Tensor.fromArray(y, batch, 1));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegressionExample e && Arrays.equals(x, e.x) && Float.compare(y, e.y) == 0;
    }

    @Override
    public int hashCode() { return 31 * Arrays.hashCode(x) + Float.hashCode(y); }

    @Override
    public String toString() { return "RegressionExample[x=" + Arrays.toString(x) + ", y=" + y + "]"; }
}
