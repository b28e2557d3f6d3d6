package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.ConvGeometry;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which convolutions put several images in one panel, and that the panel stays in its budget. */
class ImageBatchConvTest {
    /** A square conv2d with "same"-style padding k/2 on a batch of 128. */
    private static ConvGeometry conv(int c, int h, int o, int k, int stride) {
        int pad = k / 2, out = (h + 2 * pad - k) / stride + 1;
        return new ConvGeometry(128, c, h, h, o, k, k, stride, stride, pad, pad, 1, 1, 1, out, out);
    }

    @Test
    void smallMapsAreBatchedWithinThePanelBudget() {
        // small28's late stages: 96 channels at 4×4, 192 at 2×2
        for (ConvGeometry g : new ConvGeometry[] {conv(96, 4, 96, 3, 1), conv(192, 2, 192, 3, 1), conv(96, 4, 192, 3, 2)}) {
            int images = ImageBatchConv.imagesPerPanel(g);
            assertTrue(images > 1, g + ": " + images + " images per panel");
            assertTrue((long) images * g.patchSize() * g.outPixels() <= Im2colConv.PANEL_FLOATS, g + ": panel over budget");
            assertTrue(images * g.outPixels() <= ImageBatchConv.SHORT_COLUMNS + g.outPixels(), g + ": wider than needed");
        }
    }

    @Test
    void largeMapsPointwiseAndSingleImagesKeepThePerImagePath() {
        assertEquals(1, ImageBatchConv.imagesPerPanel(conv(64, 56, 64, 3, 1)));
        assertEquals(1, ImageBatchConv.imagesPerPanel(conv(24, 14, 24, 3, 1)));
        assertEquals(1, ImageBatchConv.imagesPerPanel(conv(96, 4, 96, 1, 1)));       // pointwise: the GEMM reads x itself
        assertEquals(1, ImageBatchConv.imagesPerPanel(new ConvGeometry(1, 96, 4, 4, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 4, 4)));
    }
}
