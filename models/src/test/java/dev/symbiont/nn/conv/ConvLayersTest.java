package dev.symbiont.nn.conv;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ConvLayersTest {
    @Test
    void should_give_pytorch_output_shapes() {
        Generator g = new Generator(1);
        Tensor x = Tensor.randn(g, 2, 4, 9, 9);
        assertArrayEquals(new int[] {2, 8, 5, 5}, new Conv2d(4, 8, 3, Conv2d.options().stride(2).padding(1), g).forward(x).shape());
        assertArrayEquals(new int[] {2, 6, 7, 7}, new Conv2d(4, 6, 3, Conv2d.options(), g).forward(x).shape());
        assertArrayEquals(new int[] {2, 4, 9, 9}, new Conv2d(4, 4, 4, Conv2d.options().padding("same").dilation(2), g).forward(x).shape());
        assertArrayEquals(new int[] {2, 4, 3, 3}, new Conv2d(4, 4, 7, Conv2d.options().padding(3).stride(4).groups(4), g).forward(x).shape());
        assertArrayEquals(new int[] {2, 5, 10}, new Conv1d(4, 5, 3, Conv1d.options().padding(2).dilation(2), g)
                .forward(Tensor.randn(g, 2, 4, 10)).shape());
        assertArrayEquals(new int[] {2, 5, 4}, new Conv1d(4, 5, 3, Conv1d.options().stride(3), g).forward(Tensor.randn(g, 2, 4, 12)).shape());
    }

    @Test
    void should_register_weight_and_bias_with_pytorch_shapes() {
        Generator g = new Generator(2);
        Conv2d conv = new Conv2d(6, 8, 3, Conv2d.options().groups(2), g);
        assertEquals(List.of("weight", "bias"), List.copyOf(conv.stateDict().keySet()));
        assertArrayEquals(new int[] {8, 3, 3, 3}, conv.weight().shape());
        assertArrayEquals(new int[] {8}, conv.bias().shape());
        Conv2d noBias = new Conv2d(6, 8, 1, Conv2d.options().bias(false), g);
        assertEquals(List.of("weight"), List.copyOf(noBias.stateDict().keySet()));
        assertNull(noBias.bias());
        assertArrayEquals(new int[] {5, 4, 3}, new Conv1d(4, 5, 3).weight().shape());
        assertTrue(conv.toString().contains("Conv2d(6, 8, kernel_size=3, stride=1, padding=0, groups=2, bias=true)"), conv.toString());
    }

    @Test
    void should_compute_the_grouped_strided_padded_sum_of_products() {
        Generator g = new Generator(3);
        Conv2d conv = new Conv2d(4, 2, 3, Conv2d.options().stride(2).padding(1).groups(2), g);
        Tensor x = Tensor.randn(g, 1, 4, 5, 5);
        float[] y = conv.forward(x).toFloatArray(), w = conv.weight().value().toFloatArray(), b = conv.bias().value().toFloatArray();
        float[] in = x.toFloatArray();
        int outHw = 3, i = 0;
        for (int o = 0; o < 2; o++) {
            for (int oy = 0; oy < outHw; oy++) {
                for (int ox = 0; ox < outHw; ox++) {
                    double sum = b[o];
                    for (int c = 0; c < 2; c++) {
                        for (int ky = 0; ky < 3; ky++) {
                            for (int kx = 0; kx < 3; kx++) {
                                int iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
                                if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
                                sum += w[((o * 2 + c) * 3 + ky) * 3 + kx] * in[((o * 2 + c) * 5 + iy) * 5 + ix]; // group o reads channels 2o, 2o+1
                            }
                        }
                    }
                    assertEquals(sum, y[i++], 1e-5, "output " + o + "," + oy + "," + ox);
                }
            }
        }
    }

    @Test
    void should_initialise_like_pytorch_within_one_over_sqrt_fan_in() {
        Conv2d conv = new Conv2d(64, 64, 3, Conv2d.options(), new Generator(4));
        double bound = 1 / Math.sqrt(64 * 9);
        float[] w = conv.weight().value().toFloatArray();
        assertTrue(maxAbs(w) <= bound, "max |w| " + maxAbs(w) + " > " + bound);
        assertEquals(bound / Math.sqrt(3), std(w), 0.03 * bound, "std of U(±bound)");
        assertEquals(0, mean(w), 0.02 * bound);
        assertTrue(maxAbs(conv.bias().value().toFloatArray()) <= bound);
        // Depthwise: fan_in is k·k alone, so the bound is 1/7 for a 7×7 kernel.
        float[] dw = new Conv2d(96, 96, 7, Conv2d.options().groups(96), new Generator(5)).weight().value().toFloatArray();
        assertTrue(maxAbs(dw) <= 1.0 / 7 && maxAbs(dw) > 0.9 / 7, "depthwise max |w| " + maxAbs(dw));
    }

    @Test
    void should_draw_the_same_weights_from_the_same_seed() {
        assertArrayEquals(new Conv2d(3, 4, 3, Conv2d.options(), new Generator(9)).weight().value().toFloatArray(),
                new Conv2d(3, 4, 3, Conv2d.options(), new Generator(9)).weight().value().toFloatArray());
        assertFalse(java.util.Arrays.equals(new Conv2d(3, 4, 3, Conv2d.options(), new Generator(9)).weight().value().toFloatArray(),
                new Conv2d(3, 4, 3, Conv2d.options(), new Generator(10)).weight().value().toFloatArray()));
    }

    @Test
    void should_reject_bad_construction_naming_the_layer() {
        Generator g = new Generator(6);
        throwsMentioning(() -> new Conv2d(4, 6, 3, Conv2d.options().groups(3), g), "Conv2d(4 → 6, kernel 3)", "groups = 3", "in_channels 4");
        throwsMentioning(() -> new Conv2d(6, 4, 3, Conv2d.options().groups(3), g), "groups = 3", "out_channels 4");
        throwsMentioning(() -> new Conv2d(4, 6, 0, Conv2d.options(), g), "Conv2d(4 → 6, kernel 0)", "kernel size must be at least 1");
        throwsMentioning(() -> new Conv1d(4, 6, 0, Conv1d.options(), g), "Conv1d(4 → 6, kernel 0)", "kernel size");
        throwsMentioning(() -> new Conv2d(4, 6, 3, Conv2d.options().stride(0), g), "stride must be at least 1, got 0");
        throwsMentioning(() -> new Conv2d(4, 6, 3, Conv2d.options().padding(-1), g), "padding must be >= 0, got -1");
        throwsMentioning(() -> new Conv2d(4, 6, 3, Conv2d.options().dilation(0), g), "dilation must be at least 1");
        throwsMentioning(() -> new Conv2d(4, 6, 3, Conv2d.options().groups(0), g), "groups must be at least 1");
        throwsMentioning(() -> new Conv2d(4, 6, 3, Conv2d.options().padding("same").stride(2), g), "'same' needs stride 1, got stride 2");
        throwsMentioning(() -> new Conv2d(0, 6, 3, Conv2d.options(), g), "channel counts must be positive");
        throwsMentioning(() -> Conv2d.options().padding("full"), "'same', 'valid' or a size", "'full'");
        throwsMentioning(() -> new Conv2d(4, 6, 3, null, g), "options must be given");
    }

    @Test
    void should_reject_an_input_whose_channels_disagree_naming_the_op_and_shapes() {
        Conv2d conv = new Conv2d(4, 6, 3, Conv2d.options(), new Generator(7));
        throwsMentioning(() -> conv.forward(Tensor.zeros(1, 5, 8, 8)), "conv2d", "[1, 5, 8, 8]", "[6, 4, 3, 3]");
        throwsMentioning(() -> conv.forward(Tensor.zeros(5, 8, 8)), "conv2d", "4-D input");
        throwsMentioning(() -> conv.forward(Tensor.zeros(1, 4, 2, 2)), "conv2d", "larger than the padded input");
    }

    static void throwsMentioning(Executable body, String... fragments) {
        var e = assertThrows(IllegalArgumentException.class, body);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + f + "' not in: " + e.getMessage());
    }

    private static double maxAbs(float[] v) {
        double m = 0;
        for (float f : v) m = Math.max(m, Math.abs(f));
        return m;
    }

    private static double mean(float[] v) {
        double s = 0;
        for (float f : v) s += f;
        return s / v.length;
    }

    private static double std(float[] v) {
        double m = mean(v), ss = 0;
        for (float f : v) ss += (f - m) * (f - m);
        return Math.sqrt(ss / v.length);
    }
}
