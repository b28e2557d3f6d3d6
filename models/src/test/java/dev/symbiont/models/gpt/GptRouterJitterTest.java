package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.moe.MoeLayers;
import dev.symbiont.nn.moe.MoeTransformerBlock;
import dev.symbiont.nn.moe.TopKRouter;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Router jitter set on a model's MoE settings: it reaches every router, perturbs the routing
 * logits in training (the same way for the same seed) and not in eval, the model still trains,
 * and the setting survives checkpoint metadata (older metadata without it reads as no jitter).
 */
class GptRouterJitterTest {
    private static final GptConfig CONFIG = GptConfig.of(11, 16, 2, 2, 12).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU);
    private static final MoeLayers JITTERED = MoeLayers.of(4, 2, 24).withJitter(0.2);

    private static Gpt model(MoeLayers moe) { return new Gpt(CONFIG, moe, new Generator(3), 0.1); }

    private static TopKRouter router(Gpt gpt, int block) {
        return ((MoeTransformerBlock) gpt.decoder().blocks().get(block)).moe().gate();
    }

    private static float[] logits(Gpt gpt, Tensor x) { return router(gpt, 0).route(x).logits().toFloatArray(); }

    @Test
    void trainingJittersTheRoutingLogitsReproduciblyAndEvalDoesNot() {
        Tensor x = Tensor.randn(new Generator(5), 6, 16);
        Gpt gpt = model(JITTERED), twin = model(JITTERED);
        for (int b = 0; b < CONFIG.layers(); b++) assertEquals(0.2, router(gpt, b).jitter(), "router of block " + b);
        float[] first = logits(gpt, x), second = logits(gpt, x);
        assertArrayEquals(first, logits(twin, x), "the same seed draws the same jitter");
        assertFalse(Arrays.equals(first, second), "each training forward draws new jitter");
        gpt.eval();
        float[] clean = logits(gpt, x);
        assertArrayEquals(clean, logits(gpt, x), "eval routes without jitter");
        assertArrayEquals(clean, x.matmul(router(gpt, 0).weight().value().t()).toFloatArray(), 1e-6f, "eval logits are x · Wgᵀ");
        assertFalse(Arrays.equals(clean, first), "the training logits were perturbed");

        Tensor ids = Tensor.fromArray(new long[] {1, 2, 3, 4, 5, 6}, 1, 6);
        assertArrayEquals(gpt.forward(ids).toFloatArray(), gpt.forward(ids).toFloatArray(), "an eval forward is deterministic");
        Gpt plain = model(MoeLayers.of(4, 2, 24));
        assertArrayEquals(plain.forward(ids).toFloatArray(), plain.forward(ids).toFloatArray(), "without jitter training is deterministic");
    }

    @Test
    void aModelWithJitterTrains() {
        GptMoeTest.assertTrainsWithTheAuxiliaryLoss(model(JITTERED));
    }

    @Test
    void jitterRoundTripsThroughMetadataAndOlderMetadataReadsAsNone() {
        Map<String, String> meta = new HashMap<>(model(JITTERED).metadata());
        assertEquals("0.2", meta.get("moe_router_jitter_noise"));
        MoeLayers read = MoeLayers.fromMap(meta);
        assertEquals(JITTERED, read);
        assertEquals(0.2, router(new Gpt(GptConfig.fromMap(meta), read, new Generator(4), 0.1), 1).jitter(), "the rebuilt model jitters");
        meta.remove("moe_router_jitter_noise");
        assertEquals(MoeLayers.of(4, 2, 24), MoeLayers.fromMap(meta), "a checkpoint from before the key has no jitter");
        meta.put("moe_router_jitter_noise", "lots");
        var bad = assertThrows(IllegalArgumentException.class, () -> MoeLayers.fromMap(meta));
        assertTrue(bad.getMessage().contains("moe_router_jitter_noise"), bad.getMessage());
        var range = assertThrows(IllegalArgumentException.class, () -> MoeLayers.of(4, 2, 24).withJitter(1.0));
        assertTrue(range.getMessage().contains("jitter"), range.getMessage());
    }
}
