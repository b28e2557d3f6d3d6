package dev.symbiont.data;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TensorDatasetTest {
    /** Five examples: features (5, 2) holding 10·i and 10·i + 1, labels (5) holding i. */
    private static TensorDataset fiveRows() {
        float[] x = new float[10];
        for (int i = 0; i < 5; i++) { x[2 * i] = 10 * i; x[2 * i + 1] = 10 * i + 1; }
        return new TensorDataset(Tensor.fromArray(x, 5, 2), Tensor.fromArray(new long[] {0, 1, 2, 3, 4}));
    }

    @Test
    void exampleIIsRowIOfEveryTensor() {
        TensorDataset data = fiveRows();
        assertEquals(5, data.size());
        List<Tensor> third = data.get(3);
        assertEquals(2, third.size());
        assertArrayEquals(new float[] {30, 31}, third.get(0).toFloatArray());
        assertArrayEquals(new int[] {2}, third.get(0).shape());
        assertArrayEquals(new long[] {3}, third.get(1).toLongArray());
        assertArrayEquals(new int[] {}, third.get(1).shape(), "a row of a 1-D tensor is 0-dimensional, as in PyTorch");
        assertThrows(IndexOutOfBoundsException.class, () -> data.get(5));
    }

    @Test
    void collateStacksEachFieldIntoABatch() {
        TensorDataset data = fiveRows();
        List<Tensor> batch = TensorDataset.collate(List.of(data.get(4), data.get(1)));
        assertArrayEquals(new int[] {2, 2}, batch.get(0).shape());
        assertArrayEquals(new float[] {40, 41, 10, 11}, batch.get(0).toFloatArray());
        assertArrayEquals(new long[] {4, 1}, batch.get(1).toLongArray());
    }

    @Test
    void aShuffledLoaderVisitsEveryRowOnceWithFeaturesAndLabelsTogether() {
        var loader = DataLoader.builder(fiveRows(), TensorDataset::collate).batchSize(2).shuffle(7).build();
        List<Long> seen = new ArrayList<>();
        try (var batches = loader.epoch(0)) {
            for (List<Tensor> batch : batches) {
                float[] x = batch.get(0).toFloatArray();
                long[] y = batch.get(1).toLongArray();
                for (int i = 0; i < y.length; i++) {
                    assertEquals(10f * y[i], x[2 * i], "row " + i + " keeps its label");
                    seen.add(y[i]);
                }
            }
        }
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), seen.stream().sorted().toList());
    }

    @Test
    void mismatchedFirstDimsAreNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new TensorDataset(Tensor.zeros(4, 3), Tensor.zeros(5, 2)));
        assertTrue(e.getMessage().contains("TensorDataset") && e.getMessage().contains("[5, 2]")
                && e.getMessage().contains("[4, 3]"), e.getMessage());
        var scalar = assertThrows(IllegalArgumentException.class, () -> new TensorDataset(Tensor.scalar(1f)));
        assertTrue(scalar.getMessage().contains("0-dimensional"), scalar.getMessage());
        assertThrows(IllegalArgumentException.class, TensorDataset::new);
        assertTrue(Arrays.toString(fiveRows().tensors().get(0).shape()).equals("[5, 2]"));
    }
}
