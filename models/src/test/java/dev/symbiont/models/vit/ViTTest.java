package dev.symbiont.models.vit;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.VisionTesting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class ViTTest {
    /** 8×8 grey images, patch 4 (4 patches), D 16, 2 blocks: small enough for a learning test of a second. */
    private static final ViTConfig TINY = new ViTConfig(8, 4, 1, 2, 16, 2, 2, 32, 0);

    @Test
    void should_have_timms_keys_and_shapes_for_vit_tiny_patch16_224() {
        VisionTesting.assertKeysAndShapes(ViTTest.class, "vit_tiny_patch16_224.keys", new ViT(ViTConfig.vitTiny16(), new Generator(0)));
    }

    @Test
    void should_have_timms_keys_and_shapes_for_the_28_by_28_config() {
        ViT vit = new ViT(ViTConfig.small28(), new Generator(0));
        VisionTesting.assertKeysAndShapes(ViTTest.class, "vit_small28.keys", vit);
        assertEquals(49, ViTConfig.small28().numPatches());
    }

    @Test
    void should_map_images_to_logits() {
        ViT vit = new ViT(ViTConfig.small28(), new Generator(1));
        Tensor x = Tensor.randn(new Generator(2), 3, 1, 28, 28);
        assertArrayEquals(new int[] {3, 10}, vit.forward(x).shape());
        assertArrayEquals(new int[] {3, 50, 64}, vit.forwardFeatures(x).shape());
        assertEquals(1, vit.inChannels());
        assertEquals(10, vit.numClasses());
    }

    @Test
    void should_initialise_as_timm() {
        ViT vit = new ViT(ViTConfig.small28(), new Generator(3));
        var state = vit.stateDict();
        assertEquals(0.02, VisionTesting.std(state.get("pos_embed").toFloatArray()), 0.002);
        assertTrue(VisionTesting.std(state.get("cls_token").toFloatArray()) < 1e-5);
        assertEquals(0.02, VisionTesting.std(state.get("blocks.0.attn.qkv.weight").toFloatArray()), 0.002);
        assertArrayEquals(new float[192], state.get("blocks.0.attn.qkv.bias").toFloatArray());
        assertArrayEquals(new float[10], state.get("head.bias").toFloatArray());
        // The patch projection keeps PyTorch's Conv2d default: U(±1/√(C·p·p)) = U(±1/4).
        float[] proj = state.get("patch_embed.proj.weight").toFloatArray();
        assertTrue(maxAbs(proj) <= 0.25 && maxAbs(proj) > 0.2, "patch_embed max |w| " + maxAbs(proj));
    }

    @Test
    void should_drop_only_in_training_mode() {
        VisionTesting.assertRandomOnlyInTraining(new ViT(TINY.withDropout(0.3), new Generator(4)), Tensor.randn(new Generator(5), 2, 1, 8, 8));
    }

    @Test
    void should_raise_the_drop_path_rate_linearly_from_zero_as_timm() {
        assertArrayEquals(new double[] {0, 0.1 / 3, 0.2 / 3, 0.1}, ViTConfig.small28().withDropPathRate(0.1).dropPathRates(), 1e-15);
        assertArrayEquals(new double[] {0, 0, 0, 0}, ViTConfig.small28().dropPathRates());
        assertThrows(IllegalArgumentException.class, () -> ViTConfig.small28().withDropPathRate(1));
    }

    @Test
    void should_drop_paths_in_training_and_not_in_eval() {
        ViTConfig deep = new ViTConfig(8, 4, 1, 2, 16, 4, 2, 32, 0);
        ViT plain = new ViT(deep, new Generator(8));
        ViT dropping = new ViT(deep.withDropPathRate(0.6), new Generator(8));
        assertEquals(plain.stateDict().keySet(), dropping.stateDict().keySet(), "drop path adds no keys");
        Tensor x = Tensor.randn(new Generator(9), 16, 1, 8, 8);
        float[] reference = plain.forward(x).toFloatArray();
        float[] trained = dropping.forward(x).toFloatArray(), again = dropping.forward(x).toFloatArray();
        assertFalse(java.util.Arrays.equals(reference, trained), "training drops some samples' branches");
        assertFalse(java.util.Arrays.equals(trained, again), "each forward draws new masks");
        dropping.eval();
        assertArrayEquals(reference, dropping.forward(x).toFloatArray(), "eval: the same weights give the plain model's logits");
    }

    @Test
    void should_reject_images_of_another_size_or_channel_count() {
        ViT vit = new ViT(ViTConfig.small28(), new Generator(6));
        var e = assertThrows(IllegalArgumentException.class, () -> vit.forward(Tensor.zeros(2, 1, 32, 32)));
        assertTrue(e.getMessage().contains("(N, 1, 28, 28)") && e.getMessage().contains("[2, 1, 32, 32]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> vit.forward(Tensor.zeros(2, 3, 28, 28)));
        e = assertThrows(IllegalArgumentException.class, () -> new ViTConfig(28, 5, 1, 10, 64, 4, 4, 256, 0));
        assertTrue(e.getMessage().contains("patchSize 5 must divide imageSize 28"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ViTConfig(28, 4, 1, 10, 64, 4, 3, 256, 0));
        assertTrue(e.getMessage().contains("heads 3 must divide embedDim 64"), e.getMessage());
    }

    @Test
    void should_lower_the_loss_of_a_separable_batch_with_a_few_sgd_steps() {
        VisionTesting.assertLearnsStripes(new ViT(TINY, new Generator(7)), 20, 0.05);
    }

    @Test
    void should_give_identical_logits_after_a_save_and_load(@TempDir Path dir) throws Exception {
        VisionTesting.assertSaveLoadKeepsLogits(seed -> new ViT(TINY, new Generator(seed)), dir);
    }

    private static double maxAbs(float[] v) {
        double m = 0;
        for (float f : v) m = Math.max(m, Math.abs(f));
        return m;
    }
}
