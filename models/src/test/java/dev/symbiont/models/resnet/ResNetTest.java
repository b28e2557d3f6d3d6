package dev.symbiont.models.resnet;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.VisionTesting;
import dev.symbiont.nn.norm.BatchNorm2d;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ResNetTest {
    /** One block per stage, narrow, small-image stem, grey, 2 classes: a learning test of about a second. */
    private static final ResNetConfig TINY = ResNetConfig.resnet18().forSmallImages().withInChannels(1).withNumClasses(2)
            .withWidths(8, 16, 16, 16);

    @Test
    void should_have_torchvisions_keys_and_shapes_for_resnet18() {
        ResNet resnet18 = new ResNet(ResNetConfig.resnet18(), new Generator(0));
        VisionTesting.assertKeysAndShapes(ResNetTest.class, "resnet18.keys", resnet18);
        assertEquals(11_689_512, resnet18.parameterCount());
    }

    @Test
    void should_have_torchvisions_keys_and_shapes_for_resnet50_and_its_parameter_counts() {
        ResNet resnet50 = new ResNet(ResNetConfig.resnet50(), new Generator(0));
        VisionTesting.assertKeysAndShapes(ResNetTest.class, "resnet50.keys", resnet50);
        assertEquals(25_557_032, resnet50.parameterCount());
        ResNet resnet34 = new ResNet(ResNetConfig.resnet34(), new Generator(0));
        assertEquals(21_797_672, resnet34.parameterCount());
        assertEquals(218, resnet34.stateDict().size());
    }

    @Test
    void should_map_images_to_logits_with_either_stem() {
        ResNetConfig narrow = ResNetConfig.resnet18().withWidths(8, 8, 16, 16);
        ResNet imagenet = new ResNet(narrow.withNumClasses(5), new Generator(1));
        Tensor rgb = Tensor.randn(new Generator(2), 2, 3, 64, 64);
        assertArrayEquals(new int[] {2, 16, 2, 2}, imagenet.forwardFeatures(rgb).shape());     // /32
        assertArrayEquals(new int[] {2, 5}, imagenet.forward(rgb).shape());
        ResNet small = new ResNet(narrow.forSmallImages().withInChannels(1).withNumClasses(10), new Generator(3));
        Tensor grey = Tensor.randn(new Generator(4), 2, 1, 28, 28);
        assertArrayEquals(new int[] {2, 16, 4, 4}, small.forwardFeatures(grey).shape());      // 28, 14, 7, 4
        assertArrayEquals(new int[] {2, 10}, small.forward(grey).shape());
        assertArrayEquals(new int[] {8, 1, 3, 3}, small.stateDict().get("conv1.weight").shape());
        ResNet pooled = new ResNet(narrow.withStem(ResNetStem.SMALL_POOLED).withLayers(1, 1, 1, 1).withInChannels(1), new Generator(3));
        assertArrayEquals(new int[] {2, 16, 2, 2}, pooled.forwardFeatures(grey).shape());     // 14, 7, 4, 2
        assertEquals(small.stateDict().keySet().stream().filter(k -> !k.matches("layer\\d\\.1\\..*")).toList(),
                List.copyOf(pooled.stateDict().keySet()), "the pooled stem has the same keys; one block per stage drops the .1 blocks");
        ResNet small28 = new ResNet(ResNetConfig.small28(), new Generator(3));
        assertArrayEquals(new int[] {2, 192, 2, 2}, small28.forwardFeatures(grey).shape());
        assertEquals(692_050, small28.parameterCount());
        ResNet bottleneck = new ResNet(ResNetConfig.resnet50().withWidths(4, 4, 8, 8).forSmallImages(), new Generator(5));
        assertArrayEquals(new int[] {1, 32, 4, 4}, bottleneck.forwardFeatures(Tensor.randn(new Generator(6), 1, 3, 28, 28)).shape());
    }

    @Test
    void should_initialise_as_torchvision() {
        var state = new ResNet(ResNetConfig.resnet18(), new Generator(7)).stateDict();
        // kaiming_normal_, fan_out, ReLU: std √(2 / (64·3·3)) for layer1's convs, √(2 / (128·1·1)) for a projection.
        assertEquals(Math.sqrt(2.0 / 576), VisionTesting.std(state.get("layer1.0.conv1.weight").toFloatArray()), 0.002);
        assertEquals(Math.sqrt(2.0 / 128), VisionTesting.std(state.get("layer2.0.downsample.0.weight").toFloatArray()), 0.01);
        assertEquals(Math.sqrt(2.0 / (64 * 49)), VisionTesting.std(state.get("conv1.weight").toFloatArray()), 0.002);
        float[] ones = new float[64];
        Arrays.fill(ones, 1);
        assertArrayEquals(ones, state.get("bn1.weight").toFloatArray());
        assertArrayEquals(new float[64], state.get("bn1.bias").toFloatArray());
        assertArrayEquals(ones, state.get("bn1.running_var").toFloatArray());
        float bound = (float) (1 / Math.sqrt(512));
        for (float w : state.get("fc.weight").toFloatArray()) assertTrue(Math.abs(w) <= bound, "fc keeps Linear's U(±1/√512)");
    }

    @Test
    void should_use_batch_statistics_in_training_and_running_ones_in_eval() {
        ResNet model = new ResNet(TINY, new Generator(8));
        Tensor batch = Tensor.randn(new Generator(9), 4, 1, 16, 16), first = batch.narrow(0, 0, 1);
        BatchNorm2d bn1 = (BatchNorm2d) model.namedModules().get("bn1");
        model.train();
        float[] inBatch = model.forward(batch).narrow(0, 0, 1).toFloatArray();
        assertFalse(Arrays.equals(inBatch, model.forward(first).toFloatArray()), "training normalises with the batch's statistics");
        assertEquals(2, bn1.numBatchesTracked());
        model.eval();
        float[] running = bn1.runningMean().toFloatArray();
        assertArrayEquals(model.forward(batch).narrow(0, 0, 1).toFloatArray(), model.forward(first).toFloatArray(), 1e-5f,
                "eval normalises each image with the running statistics alone");
        assertEquals(2, bn1.numBatchesTracked(), "eval does not count batches");
        assertArrayEquals(running, bn1.runningMean().toFloatArray(), "eval does not move the running mean");
    }

    @Test
    void should_reject_images_with_the_wrong_channel_count_and_bad_configs() {
        ResNet model = new ResNet(TINY, new Generator(10));
        var e = assertThrows(IllegalArgumentException.class, () -> model.forward(Tensor.zeros(2, 3, 8, 8)));
        assertTrue(e.getMessage().contains("(N, 1, H, W)") && e.getMessage().contains("[2, 3, 8, 8]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ResNetConfig.resnet18().withWidths(64, 128, 256));
        assertTrue(e.getMessage().contains("4 entries"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> model.loss(Tensor.zeros(2, 1, 8, 8), Tensor.fromArray(new long[] {0, 1, 1})));
        assertTrue(e.getMessage().contains("labels must be (N)"), e.getMessage());
    }

    @Test
    void should_smooth_the_labels_of_its_loss_as_cross_entropy_with_label_smoothing() {
        ResNet model = new ResNet(TINY, new Generator(12));
        model.eval(); // the same logits in both calls
        Tensor images = Tensor.randn(new Generator(13), 3, 1, 8, 8);
        long[] labels = {1, 0, 1};
        float[] logits = model.forward(images).toFloatArray();
        double eps = 0.1, expected = 0;
        for (int n = 0; n < 3; n++) { // (1 − ε)·(−log p_label) + ε · mean over the 2 classes of −log p
            double lse = Math.log(Math.exp(logits[2 * n]) + Math.exp(logits[2 * n + 1]));
            double nll = lse - logits[2 * n + (int) labels[n]];
            double uniform = ((lse - logits[2 * n]) + (lse - logits[2 * n + 1])) / 2;
            expected += ((1 - eps) * nll + eps * uniform) / 3;
        }
        assertEquals(expected, model.loss(images, Tensor.fromArray(labels), eps).item(), 1e-5);
        assertEquals(model.forward(images).crossEntropy(Tensor.fromArray(labels)).item(),
                model.loss(images, Tensor.fromArray(labels)).item(), 1e-6, "no smoothing is the plain cross-entropy");
    }

    @Test
    void should_lower_the_loss_of_a_separable_batch_with_a_few_sgd_steps() {
        VisionTesting.assertLearnsStripes(new ResNet(TINY, new Generator(11)), 15, 0.05);
    }

    @Test
    void should_give_identical_logits_after_a_save_and_load_with_the_batch_norm_buffers(@TempDir Path dir) throws Exception {
        VisionTesting.assertSaveLoadKeepsLogits(seed -> new ResNet(TINY, new Generator(seed)), dir);
    }
}
