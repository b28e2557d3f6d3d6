package dev.symbiont.data;

import java.util.List;
import java.util.Objects;

/**
 * A fixed-size collection of examples with random access. {@link #get} may be called from a
 * {@link DataLoader}'s worker thread, so it must be safe to call from a thread other than the
 * one that built the dataset (a pure function of the index is the easy way).
 *
 * @param <T> the example type
 */
public interface Dataset<T> {
    /** The number of examples; indices run from 0 to size() - 1. */
    int size();

    /** The example at {@code index}, in [0, size()). */
    T get(int index);

    /**
     * The example at {@code index} as epoch {@code epoch} sees it; the {@link DataLoader} calls
     * this. A dataset whose examples vary by epoch (random augmentation) overrides it, as a pure
     * function of (index, epoch) so that the batches do not depend on which thread prepares them;
     * the default ignores the epoch.
     */
    default T get(int index, int epoch) {
        return get(index);
    }

    /** Examples [from, to) of this dataset as a dataset of their own, e.g. a train/validation split. */
    default Dataset<T> slice(int from, int to) {
        if (from < 0 || to > size() || from > to) {
            throw new IndexOutOfBoundsException("Dataset.slice: [" + from + ", " + to + ") is not inside [0, " + size() + ")");
        }
        Dataset<T> base = this;
        return new Dataset<>() {
            @Override public int size() { return to - from; }
            @Override public T get(int index) {
                Objects.checkIndex(index, to - from);
                return base.get(from + index);
            }
            @Override public T get(int index, int epoch) {
                Objects.checkIndex(index, to - from);
                return base.get(from + index, epoch);
            }
        };
    }

    /** A dataset over a list, which must not change while the dataset is in use. */
    static <T> Dataset<T> of(List<T> items) {
        List<T> copy = List.copyOf(Objects.requireNonNull(items, "items"));
        return new Dataset<>() {
            @Override public int size() { return copy.size(); }
            @Override public T get(int index) { return copy.get(index); }
        };
    }
}
