package dev.symbiont.nn.moe;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.StateDictMismatchException;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.attention.TransformerBlock;
import dev.symbiont.nn.block.DecoderStack;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An MoE decoder stack: which layers are MoE, keys, the summed auxiliary loss, metadata round trip and mismatches. */
class MoeTransformerTest {
    private static final BlockConfig BLOCK = BlockConfig.of(16, 2, 32).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU);

    @Test
    void everySecondLayerIsMoeAndKeepsMixtralsKeys() {
        MoeLayers m = new MoeLayers(4, 2, 24, Dispatch.dropless(), true, 0, 2, 0.01, 0.001);
        DecoderStack stack = MoeTransformerBlock.decoder(BLOCK, m, 4, new Generator(1));
        assertInstanceOf(TransformerBlock.class, stack.blocks().get(0));
        assertInstanceOf(MoeTransformerBlock.class, stack.blocks().get(1));
        assertInstanceOf(TransformerBlock.class, stack.blocks().get(2));
        assertInstanceOf(MoeTransformerBlock.class, stack.blocks().get(3));
        var keys = stack.stateDict().keySet();
        assertTrue(keys.contains("blocks.1.block_sparse_moe.gate.weight"), keys.toString());
        assertTrue(keys.contains("blocks.3.block_sparse_moe.experts.3.w2.weight"), keys.toString());
        assertTrue(keys.contains("blocks.0.mlp.w1.weight"), keys.toString());
    }

    @Test
    void theAuxiliaryLossSumsTheMoeLayersAndReachesEveryRouter() {
        MoeLayers m = MoeLayers.of(4, 2, 24);
        DecoderStack stack = MoeTransformerBlock.decoder(BLOCK, m, 2, new Generator(2));
        assertNull(RouterLosses.total(stack, m.loadBalancingCoef(), m.zLossCoef()), "no forward yet");
        Tensor y = stack.forward(Tensor.randn(new Generator(3), 2, 5, 16));
        assertArrayEquals(new int[] {2, 5, 16}, y.shape());
        Tensor aux = RouterLosses.total(stack, 1.0, 0.5);
        double expected = 0;
        for (int i = 0; i < 2; i++) {
            MoeFeedForward.Aux a = ((MoeTransformerBlock) stack.blocks().get(i)).moe().lastAux();
            expected += a.loadBalancing().item() + 0.5 * a.zLoss().item();
        }
        assertEquals(expected, aux.item(), 1e-5);
        aux.backward();
        for (int i = 0; i < 2; i++) {
            var gate = ((MoeTransformerBlock) stack.blocks().get(i)).moe().gate().weight();
            assertTrue(gate.grad() != null && gate.grad().abs().sum().item() > 0, "router " + i + " gets the auxiliary gradient");
        }
    }

    @Test
    void settingsRoundTripThroughCheckpointMetadataAndBadValuesNameTheKey() {
        MoeLayers m = new MoeLayers(8, 2, 64, Dispatch.capacity(1.25), false, 1, 2, 0.02, 0.001);
        Map<String, String> meta = new HashMap<>(m.toMap());
        meta.put("d_model", "16");
        assertTrue(MoeLayers.present(meta));
        assertEquals(m, MoeLayers.fromMap(meta));
        assertEquals(MoeLayers.of(4, 1, 8), MoeLayers.fromMap(MoeLayers.of(4, 1, 8).toMap()));
        MoeLayers across = m.withLoadBalancing(LoadBalancing.ACROSS_LAYERS);
        assertEquals(across, MoeLayers.fromMap(across.toMap()));
        Map<String, String> older = new HashMap<>(across.toMap());
        older.remove("moe_load_balancing");
        assertEquals(LoadBalancing.PER_LAYER, MoeLayers.fromMap(older).loadBalancing(), "checkpoints from before the key balance per layer");
        older.put("moe_load_balancing", "sideways");
        var kind = assertThrows(IllegalArgumentException.class, () -> MoeLayers.fromMap(older));
        assertTrue(kind.getMessage().contains("'moe_load_balancing' = 'sideways' is not per_layer or across_layers"), kind.getMessage());
        meta.put("moe_dispatch", "capacity:0");
        var e = assertThrows(IllegalArgumentException.class, () -> MoeLayers.fromMap(meta));
        assertTrue(e.getMessage().contains("moe_dispatch"), e.getMessage());
        meta.remove("moe_top_k");
        var missing = assertThrows(IllegalArgumentException.class, () -> MoeLayers.fromMap(meta));
        assertTrue(missing.getMessage().contains("moe_top_k"), missing.getMessage());
        var k = assertThrows(IllegalArgumentException.class, () -> MoeLayers.of(4, 5, 8));
        assertTrue(k.getMessage().contains("top-k"), k.getMessage());
    }

    @Test
    void aCheckpointWithADifferentExpertCountIsRejectedNamingTheKeys() {
        DecoderStack four = MoeTransformerBlock.decoder(BLOCK, MoeLayers.of(4, 2, 24), 1, new Generator(4));
        DecoderStack eight = MoeTransformerBlock.decoder(BLOCK, MoeLayers.of(8, 2, 24), 1, new Generator(4));
        var e = assertThrows(StateDictMismatchException.class, () -> eight.loadStateDict(four.stateDict(), true));
        assertTrue(e.getMessage().contains("blocks.0.block_sparse_moe.gate.weight"), e.getMessage());
        assertTrue(e.getMessage().contains("experts.7"), e.getMessage());
    }
}
