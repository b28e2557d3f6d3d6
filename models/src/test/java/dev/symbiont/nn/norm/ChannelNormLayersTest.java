package dev.symbiont.nn.norm;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** GroupNorm and LayerNorm2d as torch.nn / timm: keys, what they normalise over, training, and bad input. */
class ChannelNormLayersTest {

    @Test
    void should_give_each_sample_and_group_mean_zero_and_variance_one_in_group_norm() {
        GroupNorm gn = new GroupNorm(2, 4);
        assertEquals(List.of("weight", "bias"), List.copyOf(gn.stateDict().keySet()));
        int n = 3, c = 4, l = 5;
        float[] y = gn.forward(Tensor.randn(new Generator(1), n, c, l).mul(3).add(2)).toFloatArray();
        for (int i = 0; i < n; i++) for (int g = 0; g < 2; g++) {
            double sum = 0, sq = 0;
            for (int at = (i * c + 2 * g) * l; at < (i * c + 2 * g + 2) * l; at++) { sum += y[at]; sq += y[at] * y[at]; }
            assertEquals(0, sum / (2 * l), 1e-5, "sample " + i + " group " + g + " mean");
            assertEquals(1, sq / (2 * l), 1e-3, "sample " + i + " group " + g + " variance");
        }
    }

    @Test
    void should_train_group_norm_weight_and_bias_and_behave_the_same_in_eval() {
        GroupNorm gn = new GroupNorm(3, 6);
        Tensor x = Tensor.randn(new Generator(2), 2, 6, 2, 2);
        Tensor y = gn.forward(x);
        y.mul(y).sum().backward();
        assertNotNull(gn.namedParameters().get("weight").grad());
        assertNotNull(gn.namedParameters().get("bias").grad());
        gn.eval();
        assertArrayEquals(y.toFloatArray(), gn.forward(x).toFloatArray());
    }

    @Test
    void should_reject_groups_that_do_not_divide_the_channels_and_inputs_with_other_channels() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new GroupNorm(4, 6));
        assertTrue(e.getMessage().contains("GroupNorm") && e.getMessage().contains("6 channels and 4 groups"), e.getMessage());
        IllegalArgumentException c = assertThrows(IllegalArgumentException.class, () -> new GroupNorm(2, 4).forward(Tensor.zeros(2, 6, 3)));
        assertTrue(c.getMessage().contains("GroupNorm") && c.getMessage().contains("[2, 6, 3]"), c.getMessage());
    }

    @Test
    void should_normalise_over_channels_at_every_position_in_layer_norm_2d() {
        LayerNorm2d ln = new LayerNorm2d(3);
        assertEquals(List.of("weight", "bias"), List.copyOf(ln.stateDict().keySet()));
        int n = 2, c = 3, h = 2, w = 4;
        Tensor x = Tensor.randn(new Generator(3), n, c, h, w).mul(2).add(1);
        Tensor y = ln.forward(x);
        assertArrayEquals(new int[] {n, c, h, w}, y.shape());
        // the same as timm's permute, layer norm over the last dim, permute back
        Tensor expected = x.permute(0, 2, 3, 1).layerNorm(new int[] {c}, Tensor.ones(c), Tensor.zeros(c), 1e-6).permute(0, 3, 1, 2);
        assertArrayEquals(expected.toFloatArray(), y.toFloatArray(), 1e-6f);
        float[] v = y.contiguous().toFloatArray();
        for (int i = 0; i < n; i++) for (int p = 0; p < h * w; p++) {
            double sum = 0;
            for (int ch = 0; ch < c; ch++) sum += v[(i * c + ch) * h * w + p];
            assertEquals(0, sum / c, 1e-5, "position " + p + " of sample " + i);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ln.forward(Tensor.zeros(2, 4, 2, 2)));
        assertTrue(e.getMessage().contains("LayerNorm2d") && e.getMessage().contains("[2, 4, 2, 2]"), e.getMessage());
    }
}
