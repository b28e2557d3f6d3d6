package dev.symbiont.nn.norm;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.nn.StateDictMismatchException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * BatchNorm2d and BatchNorm1d as torch.nn: running statistics after several training steps
 * against PyTorch's update formula written out as loops, the cumulative average, eval mode,
 * num_batches_tracked, the state dict and bad input.
 */
class BatchNormTest {
    private static final int N = 3, C = 2, H = 2, W = 3, L = H * W;

    /** Batch b of a fixed sequence: values with a channel- and batch-dependent mean and spread. */
    private static float[] batch(int b) {
        float[] x = Tensor.randn(new Generator(100 + b), N, C, H, W).toFloatArray();
        for (int i = 0; i < x.length; i++) x[i] = x[i] * (1 + b) + (i / L) % C - 0.5f * b;
        return x;
    }

    /** {mean, unbiased variance} of channel ch of an (N, C, L) batch, in double. */
    private static double[] stats(float[] x, int ch) {
        double sum = 0, sq = 0;
        for (int n = 0; n < N; n++) for (int j = 0; j < L; j++) sum += x[(n * C + ch) * L + j];
        double mean = sum / (N * L);
        for (int n = 0; n < N; n++) for (int j = 0; j < L; j++) sq += Math.pow(x[(n * C + ch) * L + j] - mean, 2);
        return new double[] {mean, sq / (N * L - 1)};
    }

    private static Tensor input(float[] x) { return Tensor.fromArray(x, N, C, H, W); }

    @Test
    void should_update_running_statistics_with_momentum_as_pytorch_does_and_count_batches() {
        BatchNorm2d bn = new BatchNorm2d(C);
        double[] mean = {0, 0}, var = {1, 1};
        for (int step = 0; step < 4; step++) {
            float[] x = batch(step);
            bn.forward(input(x));
            for (int ch = 0; ch < C; ch++) {
                double[] s = stats(x, ch);
                mean[ch] = (1 - 0.1) * mean[ch] + 0.1 * s[0];
                var[ch] = (1 - 0.1) * var[ch] + 0.1 * s[1];
            }
        }
        float[] rm = bn.runningMean().toFloatArray(), rv = bn.runningVar().toFloatArray();
        for (int ch = 0; ch < C; ch++) {
            assertEquals(mean[ch], rm[ch], 1e-5, "running_mean " + ch);
            assertEquals(var[ch], rv[ch], 1e-5 * Math.max(1, var[ch]), "running_var " + ch);
        }
        assertEquals(4, bn.numBatchesTracked());
        assertEquals(4L, bn.stateDict().get("num_batches_tracked").toLongArray()[0]);
    }

    @Test
    void should_keep_a_cumulative_average_when_momentum_is_null() {
        BatchNorm2d bn = new BatchNorm2d(C, 1e-5, null, true, true);
        double[] meanSum = new double[C], varSum = new double[C];
        int steps = 3;
        for (int step = 0; step < steps; step++) {
            float[] x = batch(step);
            bn.forward(input(x));
            for (int ch = 0; ch < C; ch++) {
                meanSum[ch] += stats(x, ch)[0];
                varSum[ch] += stats(x, ch)[1];
            }
        }
        for (int ch = 0; ch < C; ch++) {
            assertEquals(meanSum[ch] / steps, bn.runningMean().toFloatArray()[ch], 1e-5, "running_mean " + ch);
            assertEquals(varSum[ch] / steps, bn.runningVar().toFloatArray()[ch], 1e-4, "running_var " + ch);
        }
        assertEquals(steps, bn.numBatchesTracked());
    }

    @Test
    void should_normalise_with_the_running_statistics_in_eval_mode_and_leave_them_alone() {
        BatchNorm2d bn = new BatchNorm2d(C);
        for (int step = 0; step < 3; step++) bn.forward(input(batch(step)));
        float[] rm = bn.runningMean().toFloatArray(), rv = bn.runningVar().toFloatArray();
        bn.eval();
        float[] x = batch(7);
        float[] y = bn.forward(input(x)).toFloatArray();
        for (int i = 0; i < x.length; i++) {
            int ch = (i / L) % C;
            assertEquals((x[i] - rm[ch]) / Math.sqrt(rv[ch] + 1e-5), y[i], 1e-5, "y at " + i);
        }
        assertArrayEquals(rm, bn.runningMean().toFloatArray());
        assertArrayEquals(rv, bn.runningVar().toFloatArray());
        assertEquals(3, bn.numBatchesTracked(), "eval batches are not counted");
    }

    @Test
    void should_use_batch_statistics_in_eval_mode_and_keep_no_buffers_when_not_tracking() {
        BatchNorm2d bn = new BatchNorm2d(C, 1e-5, 0.1, false, false);
        assertEquals(List.of(), List.copyOf(bn.stateDict().keySet()));
        bn.eval();
        float[] x = batch(1);
        float[] y = bn.forward(input(x)).toFloatArray();
        for (int i = 0; i < x.length; i++) {
            double[] s = stats(x, (i / L) % C);
            double biased = s[1] * (N * L - 1) / (N * L);
            assertEquals((x[i] - s[0]) / Math.sqrt(biased + 1e-5), y[i], 1e-5, "y at " + i);
        }
        assertNull(bn.runningMean());
    }

    @Test
    void should_save_and_load_parameters_and_buffers_under_torchvision_keys(@TempDir Path dir) throws Exception {
        BatchNorm2d bn = new BatchNorm2d(C);
        for (int step = 0; step < 2; step++) bn.forward(input(batch(step)));
        Map<String, Tensor> state = bn.stateDict();
        assertEquals(List.of("weight", "bias", "running_mean", "running_var", "num_batches_tracked"), List.copyOf(state.keySet()));
        assertEquals(DType.INT64, state.get("num_batches_tracked").dtype());
        assertArrayEquals(new int[0], state.get("num_batches_tracked").shape());

        Path file = dir.resolve("bn.safetensors");
        Safetensors.write(file, state);
        BatchNorm2d loaded = new BatchNorm2d(C);
        Map<String, Tensor> read = Safetensors.read(file).tensors();
        assertTrue(loaded.loadStateDict(read, true).isClean());
        assertArrayEquals(bn.runningMean().toFloatArray(), loaded.runningMean().toFloatArray());
        assertArrayEquals(bn.runningVar().toFloatArray(), loaded.runningVar().toFloatArray());
        assertEquals(2, loaded.numBatchesTracked());

        float[] before = read.get("running_mean").toFloatArray();
        loaded.forward(input(batch(5)));
        assertEquals(3, loaded.numBatchesTracked(), "counting goes on from the loaded value");
        assertArrayEquals(before, read.get("running_mean").toFloatArray(), "training the loaded layer leaves the state dict alone");
        bn.eval();
        loaded.eval();
        assertFalse(java.util.Arrays.equals(bn.forward(input(batch(6))).toFloatArray(), loaded.forward(input(batch(6))).toFloatArray()),
                "the loaded layer trained one more batch");
    }

    @Test
    void should_refuse_a_state_dict_with_another_channel_count_naming_the_key_and_both_shapes() {
        BatchNorm2d bn = new BatchNorm2d(4);
        Map<String, Tensor> other = new BatchNorm2d(3).stateDict();
        StateDictMismatchException e = assertThrows(StateDictMismatchException.class, () -> bn.loadStateDict(other, true));
        for (String f : new String[] {"running_mean: module has [4], state dict has [3]", "running_var", "weight", "bias"}) {
            assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' does not mention '" + f + "'");
        }
        assertArrayEquals(new float[] {0, 0, 0, 0}, bn.runningMean().toFloatArray(), "nothing is loaded");
    }

    @Test
    void should_reject_inputs_of_the_wrong_rank_channels_or_size() {
        BatchNorm2d bn = new BatchNorm2d(C);
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class, () -> bn.forward(Tensor.zeros(N, C, L)));
        assertTrue(rank.getMessage().contains("BatchNorm2d: expected 4D input (got 3D input)"), rank.getMessage());
        IllegalArgumentException channels = assertThrows(IllegalArgumentException.class, () -> bn.forward(Tensor.zeros(N, 5, H, W)));
        assertTrue(channels.getMessage().contains("BatchNorm2d") && channels.getMessage().contains("[3, 5, 2, 3]")
                && channels.getMessage().contains("expected 2 channels"), channels.getMessage());
        IllegalArgumentException single = assertThrows(IllegalArgumentException.class, () -> bn.forward(Tensor.zeros(1, C, 1, 1)));
        assertTrue(single.getMessage().contains("expected more than 1 value per channel when training"), single.getMessage());
        assertEquals(0, bn.numBatchesTracked(), "a rejected batch is not counted");
    }

    @Test
    void should_normalise_features_and_sequences_in_batch_norm_1d() {
        BatchNorm1d bn = new BatchNorm1d(3);
        Tensor x = Tensor.randn(new Generator(4), 8, 3).mul(2).add(1);
        float[] y = bn.forward(x).toFloatArray();
        for (int ch = 0; ch < 3; ch++) {
            double sum = 0, sq = 0;
            for (int n = 0; n < 8; n++) sum += y[n * 3 + ch];
            for (int n = 0; n < 8; n++) sq += y[n * 3 + ch] * y[n * 3 + ch];
            assertEquals(0, sum / 8, 1e-5, "channel " + ch + " has mean 0");
            assertEquals(1, sq / 8, 1e-3, "channel " + ch + " has variance 1");
        }
        assertArrayEquals(new int[] {4, 3, 5}, bn.forward(Tensor.randn(new Generator(5), 4, 3, 5)).shape());
        assertThrows(IllegalArgumentException.class, () -> bn.forward(Tensor.zeros(2, 3, 2, 2)));
    }
}
