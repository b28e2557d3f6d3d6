package dev.symbiont.data;

import dev.symbiont.core.Generator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * torch.utils.data.random_split: a dataset cut into non-overlapping {@link Subset}s of given
 * lengths (or fractions of its size) over one random permutation of its indices. The same seed
 * gives the same split (not PyTorch's split: the generators differ).
 *
 * <pre>{@code
 * List<Subset<Example>> parts = RandomSplit.randomSplit(data, new double[] {0.8, 0.2}, 42);
 * Dataset<Example> train = parts.get(0), validation = parts.get(1);
 * }</pre>
 */
public final class RandomSplit {
    private RandomSplit() {}

    /** Fractions that sum to 1 within this, as Python's math.isclose allows. */
    private static final double FRACTION_SUM_TOLERANCE = 1e-9;

    /** Subsets of exactly these lengths, which must sum to the dataset's size. */
    public static <T> List<Subset<T>> randomSplit(Dataset<T> dataset, int[] lengths, long seed) {
        return randomSplit(dataset, lengths, new Generator(seed));
    }

    /** As {@link #randomSplit(Dataset, int[], long)}, drawing the permutation from {@code generator}. */
    public static <T> List<Subset<T>> randomSplit(Dataset<T> dataset, int[] lengths, Generator generator) {
        long total = 0;
        for (int i = 0; i < lengths.length; i++) {
            if (lengths[i] < 0) {
                throw new IllegalArgumentException("randomSplit: length " + lengths[i] + " at index " + i + " of "
                        + Arrays.toString(lengths) + " is negative");
            }
            total += lengths[i];
        }
        if (total != dataset.size()) {
            throw new IllegalArgumentException("randomSplit: lengths " + Arrays.toString(lengths) + " sum to " + total
                    + ", but the dataset has " + dataset.size() + " examples");
        }
        int[] order = Seeds.randperm(dataset.size(), generator);
        List<Subset<T>> parts = new ArrayList<>(lengths.length);
        int from = 0;
        for (int length : lengths) {
            parts.add(new Subset<>(dataset, Arrays.copyOfRange(order, from, from + length)));
            from += length;
        }
        return List.copyOf(parts);
    }

    /** Subsets of these fractions of the dataset (summing to 1), sized by {@link #lengthsOf}. */
    public static <T> List<Subset<T>> randomSplit(Dataset<T> dataset, double[] fractions, long seed) {
        return randomSplit(dataset, lengthsOf(fractions, dataset.size()), new Generator(seed));
    }

    /** As {@link #randomSplit(Dataset, double[], long)}, drawing the permutation from {@code generator}. */
    public static <T> List<Subset<T>> randomSplit(Dataset<T> dataset, double[] fractions, Generator generator) {
        return randomSplit(dataset, lengthsOf(fractions, dataset.size()), generator);
    }

    /**
     * The lengths PyTorch gives fractions of {@code size}: floor(size · fraction) each, then the
     * examples left over handed out one at a time, round-robin from the first subset.
     */
    public static int[] lengthsOf(double[] fractions, int size) {
        if (fractions.length == 0) throw new IllegalArgumentException("randomSplit: no fractions given");
        double sum = 0;
        for (int i = 0; i < fractions.length; i++) {
            if (!(fractions[i] >= 0 && fractions[i] <= 1)) {
                throw new IllegalArgumentException("randomSplit: fraction " + fractions[i] + " at index " + i + " of "
                        + Arrays.toString(fractions) + " is not between 0 and 1");
            }
            sum += fractions[i];
        }
        if (Math.abs(sum - 1) > FRACTION_SUM_TOLERANCE) {
            throw new IllegalArgumentException("randomSplit: fractions " + Arrays.toString(fractions) + " sum to " + sum
                    + ", not 1; give fractions that sum to 1 or whole lengths");
        }
        int[] lengths = new int[fractions.length];
        int assigned = 0;
        for (int i = 0; i < fractions.length; i++) {
            lengths[i] = (int) Math.floor(size * fractions[i]);
            assigned += lengths[i];
        }
        for (int i = 0; assigned + i < size; i++) lengths[i % lengths.length]++;
        return lengths;
    }
}
