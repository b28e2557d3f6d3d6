package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.memory.MemoryMeasure;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class CheckpointTest {
    static Sequential stack(int blocks, int dim, double dropout, boolean checkpointed) {
        Generator g = new Generator(42);
        List<Layer> layers = new ArrayList<>();
        for (int i = 0; i < blocks; i++) {
            Layer block = new ResidualMlpBlock(dim, 4 * dim, dropout, g);
            layers.add(checkpointed ? new Checkpointed(block) : block);
        }
        return new Sequential(layers);
    }

    @Test
    void should_give_the_same_outputs_and_gradients_as_the_plain_run_with_dropout_replayed() {
        Sequential plain = stack(3, 16, 0.2, false), ckpt = stack(3, 16, 0.2, true);
        Tensor x1 = Tensor.randn(new Generator(1), 8, 16).requiresGrad(true);
        Tensor x2 = x1.detach().requiresGrad(true);
        Tensor y1 = plain.forward(x1), y2 = ckpt.forward(x2);
        assertArrayEquals(y1.toFloatArray(), y2.toFloatArray());
        y1.square().sum().backward();
        y2.square().sum().backward();
        assertArrayEquals(x1.grad().toFloatArray(), x2.grad().toFloatArray(), 1e-6f);
        Map<String, Parameter> a = plain.namedParameters(), b = ckpt.namedParameters();
        assertEquals(a.keySet(), b.keySet());
        for (String key : a.keySet()) {
            assertArrayEquals(a.get(key).grad().toFloatArray(), b.get(key).grad().toFloatArray(), 1e-6f, key);
        }
    }

    @Test
    void should_lower_peak_memory_of_forward_and_backward() {
        Sequential plain = stack(4, 128, 0, false), ckpt = stack(4, 128, 0, true);
        Tensor x = Tensor.randn(new Generator(1), 256, 128);
        long plainPeak = MemoryMeasure.peakAbove(Backends.current(), () -> plain.forward(x).square().mean().backward());
        long ckptPeak = MemoryMeasure.peakAbove(Backends.current(), () -> ckpt.forward(x).square().mean().backward());
        assertTrue(ckptPeak < 0.7 * plainPeak, "checkpointed peak " + ckptPeak + " vs plain " + plainPeak);
    }

    @Test
    void should_run_plainly_when_nothing_needs_a_gradient() {
        Sequential ckpt = stack(2, 8, 0, true);
        try (var off = GradMode.disabled()) {
            Tensor y = ckpt.forward(Tensor.randn(new Generator(1), 2, 8));
            assertNull(y.gradFn());
        }
    }
}
