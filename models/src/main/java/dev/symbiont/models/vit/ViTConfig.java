package dev.symbiont.models.vit;

import dev.symbiont.nn.DropPath;

/**
 * The shape of a {@link ViT}. timm's vit_tiny_patch16_224 is {@link #vitTiny16()}; a small
 * model for 28×28 grey images (Fashion-MNIST) is {@link #small28()}.
 *
 * @param imageSize  input height and width (square images, as timm's fixed input size)
 * @param patchSize  side of each patch; must divide imageSize
 * @param inChannels image channels (3 for RGB, 1 for grey)
 * @param numClasses classifier outputs
 * @param embedDim   token width D
 * @param depth      encoder blocks
 * @param heads      attention heads; must divide embedDim
 * @param mlpHidden  hidden width of each block's MLP (4·D in the paper)
 * @param dropout    after the position embedding, on attention probabilities and after each projection, in [0, 1)
 * @param dropPathRate stochastic depth of the last block (timm's drop_path_rate); block i of L drops with rate · i / (L − 1), in [0, 1)
 */
public record ViTConfig(int imageSize, int patchSize, int inChannels, int numClasses, int embedDim, int depth, int heads,
                        int mlpHidden, double dropout, double dropPathRate) {
    public ViTConfig {
        positive("imageSize", imageSize);
        positive("patchSize", patchSize);
        positive("inChannels", inChannels);
        positive("numClasses", numClasses);
        positive("embedDim", embedDim);
        positive("depth", depth);
        positive("heads", heads);
        positive("mlpHidden", mlpHidden);
        if (imageSize % patchSize != 0) {
            throw new IllegalArgumentException("ViTConfig: patchSize " + patchSize + " must divide imageSize " + imageSize);
        }
        if (embedDim % heads != 0) throw new IllegalArgumentException("ViTConfig: heads " + heads + " must divide embedDim " + embedDim);
        if (!(dropout >= 0 && dropout < 1)) throw new IllegalArgumentException("ViTConfig: dropout must be in [0, 1), got " + dropout);
        if (!(dropPathRate >= 0 && dropPathRate < 1)) {
            throw new IllegalArgumentException("ViTConfig: dropPathRate must be in [0, 1), got " + dropPathRate);
        }
    }

    /** Without stochastic depth (timm's default drop_path_rate 0). */
    public ViTConfig(int imageSize, int patchSize, int inChannels, int numClasses, int embedDim, int depth, int heads, int mlpHidden,
                     double dropout) {
        this(imageSize, patchSize, inChannels, numClasses, embedDim, depth, heads, mlpHidden, dropout, 0);
    }

    private static void positive(String name, int value) {
        if (value <= 0) throw new IllegalArgumentException("ViTConfig: " + name + " must be positive, got " + value);
    }

    /** timm's vit_tiny_patch16_224 (DeiT-Ti's shape): 224², patch 16, D 192, 12 blocks, 3 heads, MLP 768, 1000 classes. */
    public static ViTConfig vitTiny16() { return new ViTConfig(224, 16, 3, 1000, 192, 12, 3, 768, 0); }

    /** For 28×28 grey images in 10 classes: patch 4 (49 patches), D 64, 4 blocks, 4 heads, MLP 256. */
    public static ViTConfig small28() { return new ViTConfig(28, 4, 1, 10, 64, 4, 4, 256, 0); }

    /** Patches per side: imageSize / patchSize. */
    public int gridSize() { return imageSize / patchSize; }

    /** Patches per image: gridSize². */
    public int numPatches() { return gridSize() * gridSize(); }

    public ViTConfig withInChannels(int c) {
        return new ViTConfig(imageSize, patchSize, c, numClasses, embedDim, depth, heads, mlpHidden, dropout, dropPathRate);
    }

    public ViTConfig withNumClasses(int n) {
        return new ViTConfig(imageSize, patchSize, inChannels, n, embedDim, depth, heads, mlpHidden, dropout, dropPathRate);
    }

    /** The same encoder at token width d with an MLP of mlpHidden. */
    public ViTConfig withEmbedDim(int d, int hidden) {
        return new ViTConfig(imageSize, patchSize, inChannels, numClasses, d, depth, heads, hidden, dropout, dropPathRate);
    }

    public ViTConfig withDropout(double p) {
        return new ViTConfig(imageSize, patchSize, inChannels, numClasses, embedDim, depth, heads, mlpHidden, p, dropPathRate);
    }

    public ViTConfig withDropPathRate(double r) {
        return new ViTConfig(imageSize, patchSize, inChannels, numClasses, embedDim, depth, heads, mlpHidden, dropout, r);
    }

    /** Each block's drop rate: timm's {@code linspace(0, drop_path_rate, depth)}, 0 for the first block. */
    public double[] dropPathRates() { return DropPath.linearRates(dropPathRate, depth); }
}
