package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.nn.Module;
import dev.symbiont.optim.SGD;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.*;

/** What the vision models' tests share: reference key lists, a separable batch, a few SGD steps, a save/load round trip. */
public final class VisionTesting {
    private VisionTesting() {}

    /** Images and their labels. */
    public record Batch(Tensor images, Tensor labels) {}

    /** "key [shape]" for every state-dict entry, in order. */
    public static List<String> keysAndShapes(Module m) {
        List<String> out = new ArrayList<>();
        m.stateDict().forEach((k, t) -> out.add(k + " " + Arrays.toString(t.shape())));
        return out;
    }

    /** The non-comment lines of a test resource next to {@code owner}. */
    public static List<String> resourceLines(Class<?> owner, String name) {
        var in = owner.getResourceAsStream(name);
        assertNotNull(in, "missing test resource " + name);
        try (var r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return r.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Asserts the model's keys and shapes equal the reference list line by line, naming the first difference. */
    public static void assertKeysAndShapes(Class<?> owner, String resource, Module model) {
        List<String> expected = resourceLines(owner, resource), actual = keysAndShapes(model);
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            assertEquals(expected.get(i), actual.get(i), resource + ": entry " + i);
        }
        assertEquals(expected.size(), actual.size(), resource + ": number of entries");
    }

    /**
     * n images (channels × size × size) of two classes that a small model separates easily
     * wherever it looks: class 0 has horizontal stripes (rows alternate +1, −1), class 1 vertical
     * ones, on N(0, 0.3²) noise; labels alternate 0, 1.
     */
    public static Batch separable(int n, int channels, int size, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        float[] pixels = new float[n * channels * size * size];
        long[] labels = new long[n];
        int i = 0;
        for (int img = 0; img < n; img++) {
            int c = img % 2;
            labels[img] = c;
            for (int ch = 0; ch < channels; ch++) {
                for (int y = 0; y < size; y++) {
                    for (int x = 0; x < size; x++) {
                        int stripe = c == 0 ? y : x;
                        pixels[i++] = (float) ((stripe % 2 == 0 ? 1.0 : -1.0) + 0.3 * gaussian(rnd));
                    }
                }
            }
        }
        return new Batch(Tensor.fromArray(pixels, n, channels, size, size), Tensor.fromArray(labels, n));
    }

    private static double gaussian(SplittableRandom r) {
        return Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
    }

    /** Full-batch SGD steps in training mode; returns the loss before each step and after the last (steps + 1 values). */
    public static float[] sgdLosses(ImageClassifier model, Batch batch, int steps, SGD.Options options) {
        model.train();
        SGD sgd = new SGD(model.namedParameters(), options);
        float[] losses = new float[steps + 1];
        for (int s = 0; s < steps; s++) {
            sgd.zeroGrad();
            Tensor loss = model.loss(batch.images(), batch.labels());
            losses[s] = loss.item();
            loss.backward();
            sgd.step();
        }
        losses[steps] = model.loss(batch.images(), batch.labels()).item();
        return losses;
    }

    /** Asserts the last loss is at most {@code ratio} of the first. */
    public static void assertLossFell(float[] losses, double ratio) {
        float first = losses[0], last = losses[losses.length - 1];
        assertTrue(Float.isFinite(last) && last <= ratio * first,
                "loss went from " + first + " to " + last + ", want at most " + ratio + "× — " + Arrays.toString(losses));
    }

    /**
     * Full-batch SGD with momentum 0.9 on 16 striped 8×8 images ({@link #separable}) for
     * {@code steps} steps must at least halve the loss.
     */
    public static void assertLearnsStripes(ImageClassifier model, int steps, double lr) {
        Batch batch = separable(16, model.inChannels(), 8, 12);
        assertLossFell(sgdLosses(model, batch, steps, SGD.options(lr).momentum(0.9)), 0.5);
    }

    /**
     * A model from {@code build(13)}, trained two SGD steps (so batch-norm statistics move), saved as
     * safetensors and loaded strictly into {@code build(15)}: both give the same eval logits bit for bit.
     */
    public static void assertSaveLoadKeepsLogits(LongFunction<ImageClassifier> build, Path dir) throws IOException {
        ImageClassifier trained = build.apply(13);
        sgdLosses(trained, separable(8, trained.inChannels(), 8, 14), 2, SGD.options(0.05));
        assertRoundTrip(trained, build.apply(15), Tensor.randn(new Generator(16), 4, trained.inChannels(), 8, 8), dir);
    }

    /** Eval-mode logits repeat exactly; training-mode ones (dropout, drop path) differ from them. */
    public static void assertRandomOnlyInTraining(ImageClassifier model, Tensor images) {
        model.eval();
        float[] a = model.forward(images).toFloatArray();
        assertArrayEquals(a, model.forward(images).toFloatArray(), "eval is deterministic");
        model.train();
        assertFalse(Arrays.equals(a, model.forward(images).toFloatArray()), "training mode draws masks");
    }

    /**
     * Saves {@code trained} as safetensors, loads the file strictly into {@code fresh} (built with
     * other weights), and asserts both give the same eval-mode logits bit for bit.
     */
    public static void assertRoundTrip(ImageClassifier trained, ImageClassifier fresh, Tensor images, Path dir) throws IOException {
        trained.eval();
        fresh.eval();
        float[] before = trained.forward(images).toFloatArray();
        assertFalse(Arrays.equals(before, fresh.forward(images).toFloatArray()), "the fresh model must start with other weights");
        Path file = dir.resolve("model.safetensors");
        Safetensors.write(file, trained.stateDict());
        assertTrue(fresh.loadStateDict(Safetensors.read(file).tensors(), true).isClean());
        assertArrayEquals(before, fresh.forward(images).toFloatArray());
    }

    /** The population standard deviation of v. */
    public static double std(float[] v) {
        double s = 0, ss = 0;
        for (float f : v) s += f;
        double m = s / v.length;
        for (float f : v) ss += (f - m) * (f - m);
        return Math.sqrt(ss / v.length);
    }
}
