package dev.symbiont.cli;

import dev.symbiont.models.ImageClassifier;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamGroup;
import dev.symbiont.optim.SGD;

import java.util.Arrays;

/**
 * The optimizers {@code train --task fashion-mnist --optimizer} builds, each with the learning
 * rate and weight decay it is used with by default. Weight decay applies to weights only, not
 * to biases and norms ({@link ParamGroup#splitDecay}), as timm's and torchvision's recipes do.
 */
enum ImageOptimizer {
    /** torch.optim.SGD(momentum=0.9, nesterov=True), L2 weight decay 5e-4: the ResNet's default. */
    SGD("sgd", 0.2, 5e-4) {
        @Override
        Optimizer create(ImageClassifier model, double lr, double weightDecay) {
            return new dev.symbiont.optim.SGD(ParamGroup.splitDecay(model, weightDecay),
                    dev.symbiont.optim.SGD.options(lr).momentum(0.9).nesterov(true));
        }
    },
    /** torch.optim.AdamW with decoupled weight decay 0.05: ConvNeXt's and ViT's default. */
    ADAMW("adamw", 2e-3, 0.05) {
        @Override
        Optimizer create(ImageClassifier model, double lr, double weightDecay) {
            return new AdamW(ParamGroup.splitDecay(model, weightDecay), AdamW.options(lr));
        }
    };

    private final String flag;
    private final double defaultLr, defaultWeightDecay;

    ImageOptimizer(String flag, double defaultLr, double defaultWeightDecay) {
        this.flag = flag;
        this.defaultLr = defaultLr;
        this.defaultWeightDecay = defaultWeightDecay;
    }

    /** The optimizer over {@code model}'s parameters at peak {@code lr}. */
    abstract Optimizer create(ImageClassifier model, double lr, double weightDecay);

    String flag() { return flag; }

    double defaultLr() { return defaultLr; }

    double defaultWeightDecay() { return defaultWeightDecay; }

    /** The optimizer {@code --optimizer name} names. */
    static ImageOptimizer parse(String name) {
        for (ImageOptimizer o : values()) if (o.flag.equals(name)) return o;
        throw new IllegalArgumentException("--optimizer " + name + " is not one of "
                + String.join(", ", Arrays.stream(values()).map(ImageOptimizer::flag).toList()));
    }
}
