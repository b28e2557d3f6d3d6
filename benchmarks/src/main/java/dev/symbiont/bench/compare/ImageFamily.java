package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.models.convnext.ConvNeXt;
import dev.symbiont.models.convnext.ConvNeXtConfig;
import dev.symbiont.models.resnet.ResNet;
import dev.symbiont.models.resnet.ResNetConfig;
import dev.symbiont.models.vit.ViT;
import dev.symbiont.models.vit.ViTConfig;

/**
 * The image families, the small 28×28 models the command line trains on Fashion-MNIST (one grey
 * channel, 10 classes) at their default widths: a ResNet-10, a ConvNeXt and a ViT with 4×4
 * patches. ResNet and ConvNeXt pool globally, so the same model takes larger images; the ViT
 * gets one position per patch of the side asked for.
 */
public enum ImageFamily {
    RESNET("resnet", "ResNet"),
    CONVNEXT("convnext", "ConvNeXt"),
    VIT("vit", "ViT");

    private final String id, title;

    ImageFamily(String id, String title) {
        this.id = id;
        this.title = title;
    }

    public String id() { return id; }

    public String title() { return title; }

    /** A fresh model for (N, 1, side, side) images. */
    public ImageClassifier create(int side, Generator g) {
        return switch (this) {
            case RESNET -> new ResNet(ResNetConfig.small28().withWidths(24, 48, 96, 192), g);
            case CONVNEXT -> new ConvNeXt(ConvNeXtConfig.small28().withDims(32, 64, 128, 256), g);
            case VIT -> {
                ViTConfig c = ViTConfig.small28();
                yield new ViT(new ViTConfig(side, c.patchSize(), c.inChannels(), c.numClasses(), c.embedDim(), c.depth(), c.heads(),
                        c.mlpHidden(), c.dropout(), c.dropPathRate()), g);
            }
        };
    }
}
