package dev.symbiont.data;

import dev.symbiont.core.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Tensors that share their first dimension, seen as examples along it
 * (torch.utils.data.TensorDataset): example i is the list of every tensor's row i, each a view
 * of shape (rest of the tensor's dims...). {@link #collate} stacks a list of examples back into
 * one batch per tensor, so a loader reads like PyTorch's:
 *
 * <pre>{@code
 * var data = new TensorDataset(images, labels);          // (n, 1, 28, 28) and (n)
 * var loader = DataLoader.builder(data, TensorDataset::collate).batchSize(64).shuffle(seed).build();
 * for (List<Tensor> batch : loader.epoch(0)) step(batch.get(0), batch.get(1));   // (64, 1, 28, 28), (64)
 * }</pre>
 */
public final class TensorDataset implements Dataset<List<Tensor>> {
    private final List<Tensor> tensors;
    private final int size;

    /** At least one tensor, each of rank ≥ 1, all of the same size along dim 0. */
    public TensorDataset(Tensor... tensors) {
        Objects.requireNonNull(tensors, "tensors");
        if (tensors.length == 0) throw new IllegalArgumentException("TensorDataset: needs at least one tensor");
        for (int i = 0; i < tensors.length; i++) {
            Tensor t = Objects.requireNonNull(tensors[i], "TensorDataset: tensor " + i + " is null");
            if (t.dim() == 0) {
                throw new IllegalArgumentException("TensorDataset: tensor " + i + " is 0-dimensional; each needs a first dim to index");
            }
            if (t.size(0) != tensors[0].size(0)) {
                throw new IllegalArgumentException("TensorDataset: size mismatch between tensors: tensor " + i + " has shape "
                        + Arrays.toString(t.shape()) + ", tensor 0 has shape " + Arrays.toString(tensors[0].shape())
                        + "; every tensor needs the same size along dim 0");
            }
        }
        this.tensors = List.of(tensors);
        this.size = tensors[0].size(0);
    }

    /** The tensors, in the order given. */
    public List<Tensor> tensors() { return tensors; }

    @Override
    public int size() { return size; }

    /** Row {@code index} of every tensor (views, no copies). */
    @Override
    public List<Tensor> get(int index) {
        Objects.checkIndex(index, size);
        List<Tensor> row = new ArrayList<>(tensors.size());
        for (Tensor t : tensors) row.add(t.select(0, index));
        return List.copyOf(row);
    }

    /** Stacks examples into one batch tensor per field (PyTorch's default collate): (batch, rest...). */
    public static List<Tensor> collate(List<List<Tensor>> examples) {
        if (examples.isEmpty()) throw new IllegalArgumentException("TensorDataset.collate: no examples");
        int fields = examples.get(0).size();
        List<Tensor> batch = new ArrayList<>(fields);
        for (int f = 0; f < fields; f++) {
            List<Tensor> column = new ArrayList<>(examples.size());
            for (List<Tensor> example : examples) column.add(example.get(f));
            batch.add(Tensor.stack(column, 0));
        }
        return List.copyOf(batch);
    }
}
