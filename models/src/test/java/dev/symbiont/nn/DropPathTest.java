package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** DropPath (timm's stochastic depth) and Flatten. */
class DropPathTest {

    @Test
    void should_drop_or_keep_each_sample_whole_and_scale_the_kept_ones() {
        int n = 400, rest = 6;
        DropPath dp = new DropPath(0.25, new Generator(9));
        Tensor x = Tensor.rand(new Generator(1), n, 2, 3).add(0.5);
        float[] in = x.toFloatArray(), out = dp.forward(x).toFloatArray();
        int kept = 0;
        for (int i = 0; i < n; i++) {
            boolean keep = out[i * rest] != 0;
            if (keep) kept++;
            for (int j = 0; j < rest; j++) {
                float expected = keep ? in[i * rest + j] / 0.75f : 0f;
                assertEquals(expected, out[i * rest + j], 1e-6, "sample " + i + " element " + j);
            }
        }
        assertTrue(kept > 0.65 * n && kept < 0.85 * n, "kept " + kept + " of " + n + " samples with keep probability 0.75");
    }

    @Test
    void should_repeat_its_masks_from_the_same_seed_and_send_gradients_through_the_mask() {
        Tensor x = Tensor.randn(new Generator(2), 16, 5).requiresGrad(true);
        Tensor a = new DropPath(0.5, new Generator(3)).forward(x);
        Tensor b = new DropPath(0.5, new Generator(3)).forward(x.detach());
        assertArrayEquals(a.toFloatArray(), b.toFloatArray());
        a.sum().backward();
        float[] grad = x.grad().toFloatArray(), y = a.toFloatArray();
        for (int i = 0; i < grad.length; i++) assertEquals(y[i] == 0 ? 0f : 2f, grad[i], 1e-6, "gradient " + i);
    }

    @Test
    void should_be_the_identity_in_eval_mode_and_reject_a_probability_outside_0_to_1() {
        DropPath dp = new DropPath(0.9, new Generator(4));
        dp.eval();
        Tensor x = Tensor.randn(new Generator(5), 4, 3);
        assertSame(x, dp.forward(x));
        assertThrows(IllegalArgumentException.class, () -> new DropPath(1.0));
        assertThrows(IllegalArgumentException.class, () -> new DropPath(-0.1));
    }

    @Test
    void should_flatten_the_given_dims_like_torch_nn_flatten() {
        Tensor x = Tensor.randn(new Generator(6), 2, 3, 4, 5);
        assertArrayEquals(new int[] {2, 60}, new Flatten().forward(x).shape());
        assertArrayEquals(new int[] {2, 12, 5}, new Flatten(1, 2).forward(x).shape());
        assertArrayEquals(x.toFloatArray(), new Flatten(0, -1).forward(x).toFloatArray());
    }
}
