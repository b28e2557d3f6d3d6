package dev.symbiont.models.hf;

import dev.symbiont.core.Tensor;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A loaded Mixtral's auxiliary loss is transformers' {@code router_aux_loss_coef · load_balancing_loss_func(router_logits)}:
 * every layer's router logits concatenated, E · Σ_{i,e} tokens_per_expert[i][e] · router_prob_per_expert[e], written here
 * from the router logits of the reference forward.
 */
class MixtralBalancingLossTest {
    private static final long[][] SEQUENCES = {{1, 5, 9, 3, 3, 17, 0}, {26, 2, 11, 8, 4, 4, 21}};

    /** transformers' load_balancing_loss_func without an attention mask: rows (L·T, E) of gate logits. */
    private static double loadBalancingLossFunc(List<double[]> rows, int experts, int topK) {
        double[][] tokensPerExpert = new double[topK][experts];
        double[] routerProbPerExpert = new double[experts];
        for (double[] logits : rows) {
            double[] p = HfReference.softmax(logits);
            int[] selected = HfReference.topK(p, topK);
            for (int i = 0; i < topK; i++) tokensPerExpert[i][selected[i]] += 1.0 / rows.size();
            for (int e = 0; e < experts; e++) routerProbPerExpert[e] += p[e] / rows.size();
        }
        double overall = 0;
        for (int i = 0; i < topK; i++) for (int e = 0; e < experts; e++) overall += tokensPerExpert[i][e] * routerProbPerExpert[e];
        return overall * experts;
    }

    /** Every layer's router logits for both sequences, as one list of rows. */
    private static List<double[]> routerRows(HfCheckpoint c) {
        List<double[]> rows = new ArrayList<>();
        for (long[] ids : SEQUENCES) {
            List<double[][]> layers = new ArrayList<>();
            HfReference.llama(c.weights, HfLogitsTest.llamaSpec(c, HfReference.invFreq(8, 1e6)), ids, layers);
            assertEquals(c.integer("num_hidden_layers"), layers.size());
            for (double[][] layer : layers) rows.addAll(List.of(layer));
        }
        return rows;
    }

    /** Switch's per-layer loss summed over layers, E · Σ_e f_e · P_e with f over the T·k slots: what Symbiont trains with by default. */
    private static double perLayerSum(List<double[]> rows, int layers, int experts, int topK) {
        int perLayer = rows.size() / layers;
        double sum = 0;
        for (int l = 0; l < layers; l++) {
            List<double[]> layer = new ArrayList<>();
            for (int s = 0; s < SEQUENCES.length; s++) {
                int start = s * layers * SEQUENCES[0].length + l * SEQUENCES[0].length;
                layer.addAll(rows.subList(start, start + SEQUENCES[0].length));
            }
            assertEquals(perLayer, layer.size());
            sum += loadBalancingLossFunc(layer, experts, topK) / topK;
        }
        return sum;
    }

    @Test
    void the_auxiliary_loss_is_the_coefficient_times_transformers_loss_over_all_layers_router_logits(@TempDir Path dir) throws Exception {
        Map<String, Object> config = HfLogitsTest.mixtralConfig();
        config.put("output_router_logits", true);
        config.put("num_hidden_layers", 3);
        HfCheckpoint c = HfCheckpoint.mixtral(config, 21);
        PretrainedModel p = PretrainedModels.load(c.write(dir, 1));
        long[] ids = new long[14];
        System.arraycopy(SEQUENCES[0], 0, ids, 0, 7);
        System.arraycopy(SEQUENCES[1], 0, ids, 7, 7);
        p.model().forward(Tensor.fromArray(ids, 2, 7));
        Tensor aux = p.model().auxiliaryLoss();
        List<double[]> rows = routerRows(c);
        double expected = 0.02 * loadBalancingLossFunc(rows, 4, 2);
        assertEquals(expected, aux.item(), 1e-5 * expected);
        double perLayer = 0.02 * perLayerSum(rows, 3, 4, 2);
        assertTrue(Math.abs(perLayer - expected) > 1e-3 * expected, "the layers are concatenated and f counted per choice: "
                + expected + " is not Switch's per-layer sum " + perLayer);

        aux.backward();
        Parameter gate = p.model().namedParameters().get("blocks.1.block_sparse_moe.gate.weight");
        assertNotNull(gate.grad(), "the loss reaches the routers");
        assertTrue(gate.grad().abs().max().item() > 0);
    }

    @Test
    void a_router_that_sends_equal_probability_everywhere_costs_k_times_the_coefficient(@TempDir Path dir) throws Exception {
        Map<String, Object> config = HfLogitsTest.mixtralConfig();
        config.put("output_router_logits", true);
        HfCheckpoint c = HfCheckpoint.mixtral(config, 22);
        for (int l = 0; l < 2; l++) c.weights.put("model.layers." + l + ".block_sparse_moe.gate.weight", new float[4 * 32]);
        PretrainedModel p = PretrainedModels.load(c.write(dir, 1));
        p.model().forward(Tensor.fromArray(SEQUENCES[0], 1, 7));
        // uniform P = 1/E; top-2 of equal probabilities picks experts 0 and 1 for every token: Σ_e (Σ_i f_ie) P_e · E = 2
        assertEquals(0.02 * 2, p.model().auxiliaryLoss().item(), 1e-7);
    }
}
