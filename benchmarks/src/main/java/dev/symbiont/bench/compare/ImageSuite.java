package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.backend.Backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The image families' training step (forward, cross-entropy, backward, AdamW) on a batch of grey
 * images against the image side ({@code image.side}): median time, peak memory and images per
 * second. Convolutions cost in proportion to the pixels (side²); ViT's attention over
 * (side/4)² patches grows with side⁴ once it dominates.
 */
final class ImageSuite implements Suite {
    static final String SIDE = "image.side";

    @Override
    public String id() { return "images"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        for (ImageFamily f : ImageFamily.values()) {
            for (int side : sizes.imageSides()) {
                out.add(new Measurement(SIDE, f.id(), side, "images: " + f.id() + " " + side + "×" + side, c -> {
                    String skip = c.tooSlow(SIDE, f.id(), side, f == ImageFamily.VIT ? 4 : 2);
                    return List.of(skip != null ? c.missing(SIDE, f.id(), side, skip) : step(c, f, sizes.imageBatch(), side));
                }));
            }
        }
        return out;
    }

    private static Point step(MeasureContext c, ImageFamily f, int batch, int side) {
        TrainingStep step = TrainingStep.of(f.create(side, new Generator(1)), batch, side, new Generator(2));
        double s = c.stepSeconds(f.id(), step);
        long peak = c.peakBytes(step);
        return c.point(SIDE, f.id(), side, Map.of("ms", s * 1e3, "peak_mib", MeasureContext.mib(peak), "images_per_s", batch / s,
                "params", (double) step.model().parameterCount()));
    }
}
