package dev.symbiont.models.convnext;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.VisionTesting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;

class ConvNeXtTest {
    /** Two stages of one block, 8 and 16 channels, patch 2, grey, 2 classes. */
    private static final ConvNeXtConfig TINY = new ConvNeXtConfig(1, 2, new int[] {1, 1}, new int[] {8, 16}, 2, 1e-6, 0);

    @Test
    void should_have_timms_keys_and_shapes_for_convnext_tiny() {
        ConvNeXt tiny = new ConvNeXt(ConvNeXtConfig.convnextTiny(), new Generator(0));
        VisionTesting.assertKeysAndShapes(ConvNeXtTest.class, "convnext_tiny.keys", tiny);
        assertEquals(28_589_128, tiny.parameterCount());
    }

    @Test
    void should_have_timms_keys_and_shapes_for_the_28_by_28_config() {
        VisionTesting.assertKeysAndShapes(ConvNeXtTest.class, "convnext_small28.keys", new ConvNeXt(ConvNeXtConfig.small28(), new Generator(0)));
    }

    @Test
    void should_map_images_to_logits() {
        ConvNeXt model = new ConvNeXt(ConvNeXtConfig.small28(), new Generator(1));
        Tensor x = Tensor.randn(new Generator(2), 2, 1, 28, 28);
        assertArrayEquals(new int[] {2, 256, 3, 3}, model.forwardFeatures(x).shape());      // 28, 14, 7, 3
        assertArrayEquals(new int[] {2, 10}, model.forward(x).shape());
        // Patch 2 downsamples in the first stage too (timm's rule): 16 → 8 (stem) → 4 → 2 → 1.
        ConvNeXt p2 = new ConvNeXt(new ConvNeXtConfig(3, 4, new int[] {1, 1, 1}, new int[] {8, 8, 16}, 2, 1e-6, 0), new Generator(3));
        assertArrayEquals(new int[] {1, 16, 1, 1}, p2.forwardFeatures(Tensor.randn(new Generator(4), 1, 3, 16, 16)).shape());
    }

    @Test
    void should_initialise_as_timm_with_a_small_layer_scale() {
        var state = new ConvNeXt(ConvNeXtConfig.small28(), new Generator(5)).stateDict();
        assertEquals(0.02, VisionTesting.std(state.get("stages.1.blocks.0.mlp.fc1.weight").toFloatArray()), 0.002);
        assertEquals(0.02, VisionTesting.std(state.get("stages.2.blocks.1.conv_dw.weight").toFloatArray()), 0.002);
        assertArrayEquals(new float[32], state.get("stem.0.bias").toFloatArray());
        float[] gamma = new float[64];
        Arrays.fill(gamma, 1e-6f);
        assertArrayEquals(gamma, state.get("stages.1.blocks.0.gamma").toFloatArray());
    }

    @Test
    void should_add_only_the_scaled_branch_to_the_input() {
        // With γ = 1e-6 a fresh block is the identity up to about 1e-6 · |branch|.
        ConvNeXtBlock block = new ConvNeXtBlock(8, 1e-6, 0, new Generator(6));
        Tensor x = Tensor.randn(new Generator(7), 2, 8, 5, 5);
        float[] in = x.toFloatArray(), out = block.forward(x).toFloatArray();
        double maxDiff = 0;
        for (int i = 0; i < in.length; i++) maxDiff = Math.max(maxDiff, Math.abs(in[i] - out[i]));
        assertTrue(maxDiff > 0 && maxDiff < 1e-4, "max |y − x| " + maxDiff);
    }

    @Test
    void should_drop_paths_only_in_training_mode() {
        ConvNeXt model = new ConvNeXt(new ConvNeXtConfig(1, 2, new int[] {2, 2}, new int[] {8, 16}, 2, 1.0, 0.5), new Generator(8));
        assertArrayEquals(new double[] {0, 0.5 / 3}, model.config().dropPathRates()[0], 1e-12);
        VisionTesting.assertRandomOnlyInTraining(model, Tensor.randn(new Generator(9), 4, 1, 8, 8));
    }

    @Test
    void should_reject_bad_input_and_configs() {
        ConvNeXt model = new ConvNeXt(TINY, new Generator(10));
        var e = assertThrows(IllegalArgumentException.class, () -> model.forward(Tensor.zeros(2, 3, 8, 8)));
        assertTrue(e.getMessage().contains("(N, 1, H, W)") && e.getMessage().contains("[2, 3, 8, 8]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ConvNeXtConfig(1, 2, new int[] {1, 1}, new int[] {8}, 2, 1e-6, 0));
        assertTrue(e.getMessage().contains("one entry per stage"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ConvNeXtConfig.small28().withDropPathRate(1));
        assertTrue(e.getMessage().contains("dropPathRate must be in [0, 1)"), e.getMessage());
    }

    @Test
    void should_lower_the_loss_of_a_separable_batch_with_a_few_sgd_steps() {
        VisionTesting.assertLearnsStripes(new ConvNeXt(TINY, new Generator(11)), 20, 0.1);
    }

    @Test
    void should_give_identical_logits_after_a_save_and_load(@TempDir Path dir) throws Exception {
        VisionTesting.assertSaveLoadKeepsLogits(seed -> new ConvNeXt(TINY, new Generator(seed)), dir);
    }
}
