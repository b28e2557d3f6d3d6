package dev.symbiont.models;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Losses;

import java.util.Arrays;

/**
 * A vision model that maps a batch of images to class logits: ResNet, ConvNeXt and ViT. What a
 * trainer or the command line needs of any of them, whatever the architecture.
 */
public abstract class ImageClassifier extends Layer {
    /** Image channels the model takes (1 for grey, 3 for RGB). */
    public abstract int inChannels();

    /** Classifier outputs. */
    public abstract int numClasses();

    /**
     * Class logits; dropout, stochastic depth and batch statistics follow {@link #train()} / {@link #eval()}.
     *
     * @param images (N, inChannels, H, W) float32
     * @return (N, numClasses)
     */
    @Override
    public abstract Tensor forward(Tensor images);

    /**
     * Mean cross-entropy of the logits against the labels.
     *
     * @param images (N, inChannels, H, W) float32
     * @param labels (N) integer classes in [0, numClasses)
     * @return a scalar
     */
    public Tensor loss(Tensor images, Tensor labels) { return loss(images, labels, 0); }

    /**
     * Mean cross-entropy against labels smoothed by ε, as {@code F.cross_entropy(logits, labels,
     * label_smoothing=ε)}: the target puts 1 − ε on the label and ε / numClasses on every class.
     *
     * @param images         (N, inChannels, H, W) float32
     * @param labels         (N) integer classes in [0, numClasses)
     * @param labelSmoothing ε in [0, 1]; 0 is {@link #loss(Tensor, Tensor)}
     * @return a scalar
     */
    public Tensor loss(Tensor images, Tensor labels, double labelSmoothing) {
        if (labels.dim() != 1 || images.dim() == 0 || labels.size(0) != images.size(0)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + ".loss: labels must be (N) for images of shape "
                    + Arrays.toString(images.shape()) + ", got " + Arrays.toString(labels.shape()));
        }
        return Losses.crossEntropy(forward(images), labels, Losses.IGNORE_INDEX, labelSmoothing);
    }
}
