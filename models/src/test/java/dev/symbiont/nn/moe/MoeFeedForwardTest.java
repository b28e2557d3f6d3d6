package dev.symbiont.nn.moe;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Checkpoint;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MoE layer against its per-token twin (each token through its experts' own forward), the
 * routing rules (capacity drops exactly the slots beyond capacity in token order, dropless drops
 * none, renormalised weights sum to 1), Mixtral's keys, gradients to the router, and jitter
 * replayed under checkpointing.
 */
class MoeFeedForwardTest {

    /** Σ_i g_ti · expert_{e_ti}(x_t) + Σ_s shared_s(x_t), one token at a time. */
    private static float[] perToken(MoeFeedForward moe, Tensor x) {
        TopKRouter.Routing r = moe.gate().route(x);
        long[] ids = r.expertIds().toLongArray();
        float[] g = r.weights().toFloatArray();
        int tokens = x.size(0), k = moe.config().topK(), d = x.size(1);
        float[] out = new float[tokens * d];
        for (int t = 0; t < tokens; t++) {
            for (int i = 0; i < k; i++) {
                float[] y = moe.expert((int) ids[t * k + i]).forward(x.narrow(0, t, 1)).toFloatArray();
                for (int j = 0; j < d; j++) out[t * d + j] += g[t * k + i] * y[j];
            }
            for (int sh = 0; sh < moe.config().shared(); sh++) {
                float[] y = moe.sharedExpert(sh).forward(x.narrow(0, t, 1)).toFloatArray();
                for (int j = 0; j < d; j++) out[t * d + j] += y[j];
            }
        }
        return out;
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-4, what + " element " + i);
    }

    @Test
    void droplessMatchesThePerTokenLoopAndDropsNothing() {
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(8, 4, 2, 12), new Generator(3));
        Tensor x = Tensor.randn(new Generator(4), 3, 5, 8);
        Tensor y = moe.forward(x);
        assertEquals(3, y.dim());
        assertClose(perToken(moe, x.reshape(15, 8)), y.toFloatArray(), "dropless");
        assertEquals(0.0, moe.lastAux().droppedFraction());
        assertEquals(1.0, moe.lastAux().expertLoad().sum().item(), 1e-6);
    }

    @Test
    void sharedExpertsSeeEveryTokenAndHaveTheirOwnKeys() {
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(8, 4, 1, 12).withShared(2), new Generator(31));
        Tensor x = Tensor.randn(new Generator(32), 9, 8);
        assertClose(perToken(moe, x), moe.forward(x).toFloatArray(), "with two shared experts");
        assertTrue(moe.stateDict().containsKey("shared_experts.1.w3.weight"), moe.stateDict().keySet().toString());
        assertEquals(6, moe.residualProjections().size());
        assertThrows(IllegalArgumentException.class, () -> MoeConfig.of(8, 4, 1, 12).withShared(-1));
    }

    @Test
    void capacityDropsExactlyTheSlotsBeyondCapacityInTokenOrder() {
        // Every token prefers expert 0; capacity ceil(1.0 · 1 · 10 / 2) = 5 keeps tokens 0-4 there.
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(4, 2, 1, 6).withDispatch(Dispatch.capacity(1.0)), new Generator(5));
        moe.gate().weight().update(Tensor.fromArray(new float[] {1, 1, 1, 1, -1, -1, -1, -1}, 2, 4));
        Tensor x = Tensor.rand(new Generator(6), 10, 4).add(0.1);
        float[] y = moe.forward(x).toFloatArray();
        float[] dense = perToken(moe, x);
        for (int t = 0; t < 10; t++) {
            for (int j = 0; j < 4; j++) {
                float expected = t < 5 ? dense[t * 4 + j] : 0f;
                assertEquals(expected, y[t * 4 + j], 1e-5, "token " + t + (t < 5 ? " kept" : " dropped"));
            }
        }
        assertEquals(0.5, moe.lastAux().droppedFraction(), 1e-12);
        assertEquals(1.0, moe.lastAux().expertLoad().toFloatArray()[0], 1e-6);
    }

    @Test
    void renormalisedWeightsSumToOneAndPlainOnesAreTheTopKProbabilities() {
        Tensor x = Tensor.randn(new Generator(8), 7, 6);
        TopKRouter mixtral = new TopKRouter(6, 5, 2, true, 0, new Generator(9));
        float[] sums = mixtral.route(x).weights().sum(1, false).toFloatArray();
        for (float s : sums) assertEquals(1.0, s, 1e-6);
        TopKRouter switchRouter = new TopKRouter(6, 5, 2, false, 0, new Generator(9));
        TopKRouter.Routing r = switchRouter.route(x);
        assertClose(r.probs().gather(1, r.expertIds()).toFloatArray(), r.weights().toFloatArray(), "unrenormalised");
        for (float s : r.weights().sum(1, false).toFloatArray()) assertTrue(s < 1, "two of five probabilities sum below 1");
    }

    /** The losses the layer takes from the router's own outputs equal their definitions on logits, probs and ids. */
    @Test
    void auxLossesFromTheRoutersOutputsEqualTheirDefinitions() {
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(6, 5, 2, 8), new Generator(4));
        Tensor x = Tensor.randn(new Generator(5), 11, 6);
        moe.forward(x);
        TopKRouter.Routing r = moe.gate().route(x);
        assertEquals(RouterLosses.zLoss(r.logits()).item(), moe.lastAux().zLoss().item(), 1e-5);
        assertEquals(RouterLosses.loadBalancing(r.probs(), r.expertIds()).item(), moe.lastAux().loadBalancing().item(), 1e-6);
        float[] lse = r.logsumexp().toFloatArray(), logits = r.logits().toFloatArray();
        for (int t = 0; t < 11; t++) {
            double sum = 0;
            for (int e = 0; e < 5; e++) sum += Math.exp(logits[t * 5 + e]);
            assertEquals(Math.log(sum), lse[t], 1e-5, "logsumexp of token " + t);
        }
    }

    @Test
    void stateDictKeysAreMixtrals() {
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(4, 2, 1, 6), new Generator(1));
        Set<String> expected = new TreeSet<>(Set.of("gate.weight",
                "experts.0.w1.weight", "experts.0.w2.weight", "experts.0.w3.weight",
                "experts.1.w1.weight", "experts.1.w2.weight", "experts.1.w3.weight"));
        assertEquals(expected, new TreeSet<>(moe.stateDict().keySet()));
        assertEquals("block_sparse_moe", moe.blockKey());
        assertEquals(2, moe.residualProjections().size());
    }

    @Test
    void theRouterLearnsThroughCombineAndThroughTheAuxiliaryLosses() {
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(6, 4, 2, 8), new Generator(2));
        // retained: the auxiliary losses back-propagate through the same router below, as retain_graph
        moe.forward(Tensor.randn(new Generator(3), 9, 6)).square().sum().backward(null, true);
        assertNotNull(moe.gate().weight().grad(), "the task loss reaches the router through combine");
        assertTrue(moe.gate().weight().grad().abs().sum().item() > 0);
        moe.zeroGrad();
        MoeFeedForward.Aux aux = moe.lastAux();
        aux.loadBalancing().add(aux.zLoss()).backward();
        assertTrue(moe.gate().weight().grad().abs().sum().item() > 0, "the auxiliary losses reach the router");
        assertTrue(aux.loadBalancing().item() >= 0.99, "E·Σ f·P is at least 1 when f and P agree, here " + aux.loadBalancing().item());
    }

    @Test
    void jitterIsReplayedExactlyUnderActivationCheckpointing() {
        MoeConfig c = MoeConfig.of(6, 4, 2, 8).withJitter(0.3);
        MoeFeedForward plain = new MoeFeedForward(c, new Generator(12)), ckpt = new MoeFeedForward(c, new Generator(12));
        Tensor x1 = Tensor.randn(new Generator(13), 9, 6).requiresGrad(true);
        Tensor x2 = Tensor.randn(new Generator(13), 9, 6).requiresGrad(true);
        plain.forward(x1).square().sum().backward();
        Checkpoint.run(ckpt, ckpt::forward, x2).square().sum().backward();
        assertClose(x1.grad().toFloatArray(), x2.grad().toFloatArray(), "dx");
        assertClose(plain.expert(1).w1.weight().grad().toFloatArray(), ckpt.expert(1).w1.weight().grad().toFloatArray(), "dW1");
    }

    @Test
    void badConfigurationsNameWhatDisagrees() {
        var k = assertThrows(IllegalArgumentException.class, () -> MoeConfig.of(4, 2, 3, 6));
        assertTrue(k.getMessage().contains("top-k") && k.getMessage().contains("3"), k.getMessage());
        var f = assertThrows(IllegalArgumentException.class, () -> Dispatch.capacity(0));
        assertTrue(f.getMessage().contains("capacity factor"), f.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TopKRouter(4, 2, 0, true, 0, new Generator(1)));
    }
}
