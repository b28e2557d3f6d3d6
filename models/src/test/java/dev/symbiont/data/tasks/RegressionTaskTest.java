package dev.symbiont.data.tasks;

import dev.symbiont.core.DType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegressionTaskTest {
    @Test
    void withoutNoiseTargetsShouldBeExactlyLinearInTheFeatures() {
        var task = new RegressionTask(6, 0f, 50, 9);
        float[] w = task.weights();
        for (int i = 0; i < task.size(); i++) {
            RegressionExample e = task.get(i);
            double y = task.bias();
            for (int j = 0; j < 6; j++) y += (double) e.x()[j] * w[j];
            assertEquals(y, e.y(), 1e-5);
        }
    }

    @Test
    void noiseShouldHaveTheRequestedSpread() {
        var task = new RegressionTask(4, 0.5f, 4000, 3);
        float[] w = task.weights();
        double sumSq = 0;
        for (int i = 0; i < task.size(); i++) {
            RegressionExample e = task.get(i);
            double r = e.y() - task.bias();
            for (int j = 0; j < 4; j++) r -= (double) e.x()[j] * w[j];
            sumSq += r * r;
        }
        double std = Math.sqrt(sumSq / task.size());
        assertEquals(0.5, std, 0.05);
    }

    @Test
    void seedShouldFixWeightsAndExamples() {
        var a = new RegressionTask(5, 0.1f, 20, 1);
        var b = new RegressionTask(5, 0.1f, 20, 1);
        var c = new RegressionTask(5, 0.1f, 20, 2);
        assertArrayEquals(a.weights(), b.weights());
        assertEquals(a.bias(), b.bias());
        for (int i = 0; i < 20; i++) assertEquals(a.get(i), b.get(i));
        assertFalse(java.util.Arrays.equals(a.weights(), c.weights()));
        assertFalse(a.get(0).equals(c.get(0)));
    }

    @Test
    void collateShouldGiveBatchByDimAndBatchByOneFloatTensors() {
        var task = new RegressionTask(3, 0.1f, 10, 4);
        RegressionBatch batch = RegressionExample.collate(List.of(task.get(0), task.get(1)));
        assertArrayEquals(new int[] {2, 3}, batch.x().shape());
        assertArrayEquals(new int[] {2, 1}, batch.y().shape());
        assertEquals(DType.FLOAT32, batch.x().dtype());
        float[] x = batch.x().toFloatArray();
        assertArrayEquals(task.get(1).x(), java.util.Arrays.copyOfRange(x, 3, 6));
        assertEquals(task.get(1).y(), batch.y().toFloatArray()[1]);
    }

    @Test
    void badSettingsShouldBeRejected() {
        var dim = assertThrows(IllegalArgumentException.class, () -> new RegressionTask(0, 0.1f, 10, 0));
        assertTrue(dim.getMessage().contains("0"));
        var noise = assertThrows(IllegalArgumentException.class, () -> new RegressionTask(3, -1f, 10, 0));
        assertTrue(noise.getMessage().contains("-1"));
        assertThrows(IllegalArgumentException.class, () -> new RegressionTask(3, Float.NaN, 10, 0));
    }
}
