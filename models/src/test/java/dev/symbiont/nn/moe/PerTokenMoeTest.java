package dev.symbiont.nn.moe;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-token reference against the fused MoE layer it wraps: the same output and the same
 * gradients to the input, every expert weight and the router, dropless, with shared experts and
 * with capacity drops.
 */
class PerTokenMoeTest {

    /** Output, dx, then every parameter's gradient (zeros where none arrived), after backward of Σ y ⊙ r. */
    private static Map<String, float[]> run(Layer layer, MoeFeedForward moe, Tensor x0, Tensor r) {
        moe.zeroGrad();
        Tensor x = x0.detach().requiresGrad(true);
        Tensor y = layer.forward(x);
        y.mul(r).sum().backward();
        Map<String, float[]> out = new LinkedHashMap<>();
        out.put("y", y.toFloatArray());
        out.put("dx", x.grad().toFloatArray());
        for (Map.Entry<String, Parameter> p : moe.namedParameters().entrySet()) {
            Tensor g = p.getValue().grad();
            out.put("d " + p.getKey(), g == null ? new float[p.getValue().value().numel()] : g.toFloatArray());
        }
        return out;
    }

    private static void assertTwins(MoeConfig c, int tokens, long seed) {
        MoeFeedForward moe = new MoeFeedForward(c, new Generator(seed));
        Tensor x = Tensor.randn(new Generator(seed + 1), tokens, c.dModel());
        Tensor r = Tensor.randn(new Generator(seed + 2), tokens, c.dModel());
        Map<String, float[]> fused = run(moe, moe, x, r), perToken = run(new PerTokenMoe(moe), moe, x, r);
        assertEquals(fused.keySet(), perToken.keySet());
        for (String what : fused.keySet()) assertArrayEquals(fused.get(what), perToken.get(what), 1e-4f, c + ": " + what);
    }

    @Test
    void droplessMatchesTheFusedLayerInOutputAndEveryGradient() {
        assertTwins(MoeConfig.of(8, 4, 2, 12), 11, 3);
        assertTwins(MoeConfig.of(6, 1, 1, 5), 4, 5);
    }

    @Test
    void sharedExpertsAndUnrenormalisedWeightsMatch() {
        assertTwins(MoeConfig.of(8, 4, 1, 12).withShared(1).withRenormalize(false), 9, 7);
    }

    @Test
    void capacityDropsTheSameSlotsAsTheFusedLayer() {
        MoeConfig c = MoeConfig.of(6, 4, 2, 8).withDispatch(Dispatch.capacity(0.5));
        MoeFeedForward moe = new MoeFeedForward(c, new Generator(11));
        moe.forward(Tensor.randn(new Generator(12), 13, 6));
        assertTrue(moe.lastAux().droppedFraction() > 0, "the capacity drops slots here");
        assertTwins(c, 13, 11);
    }

    @Test
    void keepsTheInputShape() {
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(4, 2, 1, 6), new Generator(1));
        Tensor y = new PerTokenMoe(moe).forward(Tensor.randn(new Generator(2), 2, 3, 4));
        assertArrayEquals(new int[] {2, 3, 4}, y.shape());
    }
}
