package dev.symbiont.nn.block;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.LayerNorm;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.FeedForward;
import dev.symbiont.nn.attention.NormKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pre-norm block whose second norm has a fused form (LayerNorm, RMSNorm) fuses the residual add
 * into it, whatever the norm's kind, with the same values and keys.
 */
class FusedResidualNormTest {

    /** The same norm seen as a plain layer, so the block cannot fuse it. */
    private static final class Opaque extends Layer {
        private final Layer inner;

        Opaque(Layer inner) { this.inner = module("inner", inner); }

        @Override
        public Tensor forward(Tensor x) { return inner.forward(x); }
    }

    private record Run(float[] y, List<float[]> grads, List<String> ops) {}

    private static Run run(NormKind kind, boolean fused) {
        Generator g = new Generator(3);
        Layer norm1 = kind.create(16), norm2 = kind.create(16);
        SequenceMixer mixer = new CausalConvMixer(16, 3, g);
        ChannelMixer mlp = new FeedForward(BlockConfig.of(16, 4, 32), g);
        ResidualBlock<?, ?> block = new ResidualBlock<>(norm1, mixer, fused ? norm2 : new Opaque(norm2), mlp);
        // Non-trivial norm parameters, so their gradients depend on the norm's input.
        for (Parameter p : norm2.trainableParameters()) p.update(Tensor.randn(g, 16));
        Tensor x = Tensor.randn(new Generator(4), 2, 5, 16).requiresGrad(true);
        try (ProfilerSession profile = Profiler.start("block")) {
            Tensor y = block.forward(x, null, true, null);
            y.mul(Tensor.randn(new Generator(5), 2, 5, 16)).sum().backward();
            List<float[]> grads = new java.util.ArrayList<>();
            grads.add(x.grad().toFloatArray());
            for (Parameter p : block.trainableParameters()) grads.add(p.value().grad().toFloatArray());
            List<String> ops = profile.report().ops().stream().map(ProfileReport.OpRow::name).toList();
            return new Run(y.toFloatArray(), grads, ops);
        }
    }

    /** The fused op a block with this norm kind runs. */
    private static String fusedOp(NormKind kind) {
        return switch (kind) {
            case LAYER_NORM -> "add_layer_norm";
            case RMS_NORM -> "add_rms_norm";
        };
    }

    @ParameterizedTest
    @EnumSource(NormKind.class)
    void takesTheFusedAddAndNormForEitherNormKind(NormKind kind) {
        Run fused = run(kind, true), plain = run(kind, false);
        assertTrue(fused.ops().contains(fusedOp(kind)), kind + ": the block runs " + fusedOp(kind) + ", ran " + fused.ops());
        assertTrue(fused.ops().contains(fusedOp(kind) + ".backward"), kind + ": and its backward, ran " + fused.ops());
        assertFalse(plain.ops().contains(fusedOp(kind)), kind + ": a norm the block cannot see into is not fused");
    }

    @ParameterizedTest
    @EnumSource(NormKind.class)
    void givesTheUnfusedBlocksOutputAndGradientsToTheBit(NormKind kind) {
        Run fused = run(kind, true), plain = run(kind, false);
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
