package dev.symbiont.cuda;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * The im2col convolution with its column matrix capped so that a batch goes through in chunks of
 * images (here one and two images of five) matches the one-chunk path, forward and all
 * three gradients, within float32 rounding: the chunks split the same GEMMs along the batch, and
 * the weight gradient adds per-chunk sums.
 */
class CudaConvChunksTest {

    @Test
    void aBatchSplitIntoImageChunksMatchesTheWholeBatch() {
        CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
        // 5 images, 4 → 6 channels in 2 groups, 3×3 taps, stride 2, padding 1 on 7×6: out 4×3
        ConvGeometry g = new ConvGeometry(5, 4, 7, 6, 6, 3, 3, 2, 2, 1, 1, 1, 1, 2, 4, 3);
        long perImage = 4L * 3 * 3 * 4 * 3;
        try (Scope s = Backends.use(cuda)) {
            Generator gen = new Generator(11);
            Tensor x = Tensor.randn(gen, g.inputShape()), w = Tensor.randn(gen, g.weightShape()), b = Tensor.randn(gen, 6);
            Tensor gradOut = Tensor.randn(gen, g.outputShape());
            ConvKernels whole = new CudaConvKernels(cuda);
            float[][] expected = outcome(whole, x, w, b, gradOut, g);
            for (long cap : new long[] {perImage, 2 * perImage + 1}) {
                float[][] actual = outcome(new CudaConvKernels(cuda, cap), x, w, b, gradOut, g);
                for (int i = 0; i < expected.length; i++) assertArrayEquals(expected[i], actual[i], 1e-5f, "cap " + cap + ", result " + i);
            }
        }
    }

    private static float[][] outcome(ConvKernels k, Tensor x, Tensor w, Tensor b, Tensor gradOut, ConvGeometry g) {
        ConvKernels.ConvGrads gr = k.conv2dBackward(gradOut, x, w, g, true, true, true);
        return new float[][] {k.conv2d(x, w, b, g).toFloatArray(), gr.input().toFloatArray(), gr.weight().toFloatArray(),
                gr.bias().toFloatArray()};
    }
}
