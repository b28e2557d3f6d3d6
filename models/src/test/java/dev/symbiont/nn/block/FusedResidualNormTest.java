package dev.symbiont.nn.block;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.LayerNorm;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.FeedForward;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A pre-norm block whose second norm is a LayerNorm fuses the residual add into it, with the same values and keys. */
class FusedResidualNormTest {

    /** The same LayerNorm seen as a plain layer, so the block cannot fuse it. */
    private static final class Opaque extends Layer {
        private final LayerNorm inner;

        Opaque(LayerNorm inner) { this.inner = module("inner", inner); }

        @Override
        public Tensor forward(Tensor x) { return inner.forward(x); }
    }

    private record Run(float[] y, List<float[]> grads) {}

    private static Run run(boolean fused) {
        Generator g = new Generator(3);
        LayerNorm norm1 = new LayerNorm(16), norm2 = new LayerNorm(16);
        SequenceMixer mixer = new CausalConvMixer(16, 3, g);
        ChannelMixer mlp = new FeedForward(BlockConfig.of(16, 4, 32), g);
        ResidualBlock<?, ?> block = new ResidualBlock<>(norm1, mixer, fused ? norm2 : new Opaque(norm2), mlp);
        // Non-trivial norm parameters, so their gradients depend on the norm's input.
        for (Parameter p : norm2.trainableParameters()) p.update(Tensor.randn(g, 16));
        Tensor x = Tensor.randn(new Generator(4), 2, 5, 16).requiresGrad(true);
        Tensor y = block.forward(x, null, true, null);
        y.mul(Tensor.randn(new Generator(5), 2, 5, 16)).sum().backward();
        List<float[]> grads = new java.util.ArrayList<>();
        grads.add(x.grad().toFloatArray());
        for (Parameter p : block.trainableParameters()) grads.add(p.value().grad().toFloatArray());
        return new Run(y.toFloatArray(), grads);
    }

    @Test
    void givesTheUnfusedBlocksOutputAndGradientsToTheBit() {
        Run fused = run(true), plain = run(false);
        assertArrayEquals(plain.y(), fused.y(), 0f, "output");
        assertEquals(plain.grads().size(), fused.grads().size());
        for (int i = 0; i < plain.grads().size(); i++) assertArrayEquals(plain.grads().get(i), fused.grads().get(i), 0f, "gradient " + i);
    }

    @Test
    void keepsTheBlocksStateDictKeys() {
        Generator g = new Generator(3);
        var block = new ResidualBlock<>(new LayerNorm(16), new CausalConvMixer(16, 3, g), new LayerNorm(16),
                new FeedForward(BlockConfig.of(16, 4, 32), g));
        assertEquals(List.of("norm1.weight", "norm1.bias", "mixer.weight", "norm2.weight", "norm2.bias",
                "mlp.fc.weight", "mlp.fc.bias", "mlp.proj.weight", "mlp.proj.bias"), List.copyOf(block.stateDict().keySet()));
    }
}
