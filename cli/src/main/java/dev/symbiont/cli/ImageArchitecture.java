package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.models.convnext.ConvNeXt;
import dev.symbiont.models.convnext.ConvNeXtConfig;
import dev.symbiont.models.resnet.ResNet;
import dev.symbiont.models.resnet.ResNetConfig;
import dev.symbiont.models.vit.ViT;
import dev.symbiont.models.vit.ViTConfig;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The vision models {@code train --task fashion-mnist --arch} builds for 28×28 grey images in
 * 10 classes, each scaled by one {@code --width}; the saved model's metadata names the family
 * and the width, which is all it takes to rebuild it.
 */
enum ImageArchitecture {
    /** ResNetConfig.small28 (a ResNet-10 behind the pooled 3×3 stem); width = the first stage's channels, doubled per stage (24 by default). */
    RESNET("resnet", 24, ImageOptimizer.SGD) {
        @Override
        ImageClassifier build(int w, int inChannels, int classes, Generator g) {
            return new ResNet(ResNetConfig.small28().withInChannels(inChannels).withNumClasses(classes)
                    .withWidths(w, 2 * w, 4 * w, 8 * w), g);
        }
    },
    /** ConvNeXtConfig.small28 (stride-1 stem); width = the first stage's dim, doubled per stage. */
    CONVNEXT("convnext", 32, ImageOptimizer.ADAMW) {
        @Override
        ImageClassifier build(int w, int inChannels, int classes, Generator g) {
            return new ConvNeXt(ConvNeXtConfig.small28().withInChannels(inChannels).withNumClasses(classes)
                    .withDims(w, 2 * w, 4 * w, 8 * w), g);
        }
    },
    /** ViTConfig.small28 (patch 4, 4 blocks, 4 heads); width = the token width D, the MLP 4·D. */
    VIT("vit", 64, ImageOptimizer.ADAMW) {
        @Override
        ImageClassifier build(int w, int inChannels, int classes, Generator g) {
            ViTConfig c = ViTConfig.small28();
            if (w % c.heads() != 0) throw new IllegalArgumentException("--width " + w + " must be a multiple of ViT's " + c.heads() + " heads");
            return new ViT(c.withInChannels(inChannels).withNumClasses(classes).withEmbedDim(w, 4 * w), g);
        }
    };

    static final String ARCHITECTURE = "architecture", WIDTH = "width", IN_CHANNELS = "in_channels", NUM_CLASSES = "num_classes";

    private final String flag;
    private final int defaultWidth;
    private final ImageOptimizer defaultOptimizer;

    ImageArchitecture(String flag, int defaultWidth, ImageOptimizer defaultOptimizer) {
        this.flag = flag;
        this.defaultWidth = defaultWidth;
        this.defaultOptimizer = defaultOptimizer;
    }

    /**
     * The model, freshly initialised from {@code g}.
     * Its forward maps images (N, inChannels, 28, 28) to logits (N, classes).
     */
    abstract ImageClassifier build(int width, int inChannels, int classes, Generator g);

    String flag() { return flag; }

    int defaultWidth() { return defaultWidth; }

    /** The optimizer this family trains with when --optimizer is not given (docs/decisions.md, ADR-061 "The Fashion-MNIST recipe"). */
    ImageOptimizer defaultOptimizer() { return defaultOptimizer; }

    /** The family {@code --arch name} names. */
    static ImageArchitecture parse(String name) {
        for (ImageArchitecture a : values()) if (a.flag.equals(name)) return a;
        throw new IllegalArgumentException("--arch " + name + " is not an image model: --task fashion-mnist takes --arch "
                + String.join(", ", Arrays.stream(values()).map(ImageArchitecture::flag).toList()));
    }

    /** What a saved model records so that {@link #load} can rebuild it. */
    Map<String, String> metadata(int width, int inChannels, int classes) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ARCHITECTURE, flag);
        m.put(WIDTH, Integer.toString(width));
        m.put(IN_CHANNELS, Integer.toString(inChannels));
        m.put(NUM_CLASSES, Integer.toString(classes));
        return m;
    }

    /** The model a saved model's metadata describes (its weights still to be loaded). */
    static ImageClassifier load(Map<String, String> metadata, Generator g) {
        String name = metadata.get(ARCHITECTURE);
        if (name == null) throw new IllegalArgumentException("the model's metadata names no architecture: it is not an image model saved by train");
        ImageArchitecture a;
        try {
            a = parse(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the model's metadata names architecture '" + name + "', which is not an image model"
                    + " (eval reads models trained with --task fashion-mnist)");
        }
        return a.build(integer(metadata, WIDTH), integer(metadata, IN_CHANNELS), integer(metadata, NUM_CLASSES), g);
    }

    private static int integer(Map<String, String> metadata, String key) {
        String v = metadata.get(key);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "the model's metadata has %s = %s, not an integer", key, v));
        }
    }
}
