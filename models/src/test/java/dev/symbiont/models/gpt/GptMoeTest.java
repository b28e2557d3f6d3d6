package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.MoeLayers;
import dev.symbiont.optim.Adam;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A GPT whose every second MLP is a mixture of experts: keys, metadata, auxiliary loss, training and decoding. */
class GptMoeTest {
    private static final GptConfig CONFIG = GptConfig.of(11, 16, 2, 2, 12).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU);
    private static final MoeLayers MOE = new MoeLayers(4, 2, 24, Dispatch.capacity(2.0), true, 0, 2, 0.01, 0.001);

    private static Gpt model() { return new Gpt(CONFIG, MOE, new Generator(3), 0.1); }

    @Test
    void theSecondBlockIsMoeAndTheMetadataRebuildsBothConfigs() {
        Gpt gpt = model();
        var keys = gpt.stateDict().keySet();
        assertTrue(keys.contains("blocks.1.block_sparse_moe.experts.3.w1.weight"), keys.toString());
        assertTrue(keys.contains("blocks.0.mlp.w1.weight"), keys.toString());
        Map<String, String> meta = gpt.metadata();
        assertEquals(CONFIG, GptConfig.fromMap(meta));
        assertEquals(MOE, MoeLayers.fromMap(meta));
        assertFalse(MoeLayers.present(new Gpt(CONFIG, new Generator(3)).metadata()));
        assertNull(new Gpt(CONFIG, new Generator(3)).auxiliaryLoss());
    }

    /** Trains {@code gpt} with Adam on a next-token task for 30 steps, adding the auxiliary loss; asserts the task loss halves. */
    static void assertTrainsWithTheAuxiliaryLoss(Gpt gpt) {
        Tensor ids = Tensor.fromArray(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}, 2, 8);
        Tensor targets = Tensor.fromArray(new long[] {2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5, 6, 7, 8, 9}, 2, 8);
        Adam opt = new Adam(gpt.namedParameters(), Adam.options(0.01));
        double first = 0, last = 0;
        for (int step = 0; step < 30; step++) {
            opt.zeroGrad();
            Tensor task = gpt.loss(ids, targets);
            Tensor aux = gpt.auxiliaryLoss();
            assertTrue(aux.requiresGrad(), "the auxiliary loss reaches the routers");
            task.add(aux).backward();
            opt.step();
            if (step == 0) first = task.item();
            last = task.item();
        }
        assertTrue(last < first / 2, "loss " + first + " -> " + last);
    }

    @Test
    void trainingWithTheAuxiliaryLossLowersTheLossAndDecodingRunsThroughTheExperts() {
        Gpt gpt = model();
        assertTrainsWithTheAuxiliaryLoss(gpt);
        long[] out = gpt.generate(new long[] {1, 2, 3}, 4, Sampling.greedy(), new Generator(1));
        assertEquals(7, out.length);
        assertArrayEquals(new long[] {1, 2, 3}, java.util.Arrays.copyOf(out, 3));
    }
}
