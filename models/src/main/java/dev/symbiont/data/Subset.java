package dev.symbiont.data;

import java.util.Arrays;
import java.util.Objects;

/**
 * The examples of a dataset at the given indices, in that order (torch.utils.data.Subset);
 * {@link RandomSplit} makes them.
 *
 * @param <T> the example type
 */
public final class Subset<T> implements Dataset<T> {
    private final Dataset<T> dataset;
    private final int[] indices;

    /** Every index must lie in [0, dataset.size()). */
    public Subset(Dataset<T> dataset, int[] indices) {
        this.dataset = Objects.requireNonNull(dataset, "dataset");
        this.indices = indices.clone();
        for (int i = 0; i < this.indices.length; i++) {
            if (this.indices[i] < 0 || this.indices[i] >= dataset.size()) {
                throw new IndexOutOfBoundsException("Subset: index " + this.indices[i] + " at position " + i
                        + " is outside [0, " + dataset.size() + ")");
            }
        }
    }

    /** The dataset the indices point into. */
    public Dataset<T> dataset() { return dataset; }

    /** The indices into {@link #dataset()}, in this subset's order (a copy). */
    public int[] indices() { return indices.clone(); }

    @Override
    public int size() { return indices.length; }

    @Override
    public T get(int index) { return dataset.get(indices[Objects.checkIndex(index, indices.length)]); }

    @Override
    public T get(int index, int epoch) { return dataset.get(indices[Objects.checkIndex(index, indices.length)], epoch); }

    @Override
    public String toString() {
        String first = Arrays.toString(Arrays.copyOf(indices, Math.min(8, indices.length)));
        return "Subset of " + indices.length + " examples at " + (indices.length > 8 ? first.replace("]", ", ...]") : first);
    }
}
