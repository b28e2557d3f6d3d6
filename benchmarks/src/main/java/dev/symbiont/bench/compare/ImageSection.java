package dev.symbiont.bench.compare;

import java.util.List;

/** The image families' training step against the image side. */
final class ImageSection {
    private ImageSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("images", "Images: ResNet, ConvNeXt, ViT");
        b.text("One training step of the small Fashion-MNIST models (grey images, 10 classes) against the image side: ResNet-10 (widths 24…192), "
                + "ConvNeXt (dims 32…256), ViT (4×4 patches, 4 blocks of width 64). A convolution's cost grows with the pixels (side², exponent 2 "
                + "against the side); ViT's attention over (side/4)² patches grows with side⁴ once it dominates.");
        Sweep.add(b, r, ImageSuite.SIDE, "side", "image side", List.of(new Sweep.Metric("ms", "ms per step", true, true),
                new Sweep.Metric("peak_mib", "peak MiB", true, true), new Sweep.Metric("images_per_s", "images/s", false, false),
                new Sweep.Metric("params", "parameters", false, false)), Titles::of);
        return b.build();
    }
}
