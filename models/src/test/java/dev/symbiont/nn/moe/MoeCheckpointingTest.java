package dev.symbiont.nn.moe;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.nn.Checkpointed;
import dev.symbiont.nn.ForwardMetrics;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Activation checkpointing changes nothing a training step sees of an MoE model: the loss, the
 * auxiliary losses, the routing metrics and every gradient — the router's from the auxiliary
 * losses included — equal those without checkpointing, with router jitter replayed in the rerun
 * and the step's loss scaled as a trainer scales it (1/accumulation).
 */
class MoeCheckpointingTest {
    private static final double LOAD_BALANCING = 0.5, Z_LOSS = 0.1, SCALE = 0.25;

    /** Two MoE layers with jitter, each optionally checkpointed: x → moe2(moe1(x) + x). */
    private static final class TwoLayers extends Module {
        private final Layer first, second;

        TwoLayers(boolean checkpointed) {
            Generator g = new Generator(11);
            MoeConfig c = MoeConfig.of(8, 4, 2, 12).withJitter(0.2);
            MoeFeedForward a = new MoeFeedForward(c, g), b = new MoeFeedForward(c.withDispatch(Dispatch.capacity(1.0)), g);
            first = module("first", checkpointed ? new Checkpointed(a) : a);
            second = module("second", checkpointed ? new Checkpointed(b) : b);
        }

        /** x: (T, 8) → (T, 8). */
        Tensor forward(Tensor x) { return second.forward(first.forward(x).add(x)); }
    }

    /** What one step of a model gives: task loss, auxiliary loss, metrics, then every gradient by name. */
    private record Step(double loss, double aux, Map<String, Double> metrics, Map<String, float[]> grads) {}

    private static Step layerStep(boolean checkpointed, double balancingCoef) {
        TwoLayers model = new TwoLayers(checkpointed);
        model.train();
        Generator g = new Generator(5);
        Tensor x = Tensor.randn(g, 13, 8).requiresGrad(true);
        Tensor task = model.forward(x).mul(Tensor.randn(g, 13, 8)).sum();
        Tensor aux = RouterLosses.total(model, balancingCoef, Z_LOSS);
        Map<String, Double> metrics = ForwardMetrics.of(model).values();
        MoeFeedForward.Aux before = firstMoe(model).lastAux();
        task.add(aux).mul(SCALE).backward();
        assertSame(before, firstMoe(model).lastAux(), "backward's rerun leaves the forward's losses in place");
        Map<String, float[]> grads = grads(model);
        grads.put("x", x.grad().toFloatArray());
        return new Step(task.item(), aux.item(), metrics, grads);
    }

    private static MoeFeedForward firstMoe(Module model) {
        for (Module m : model.modules()) if (m instanceof MoeFeedForward moe) return moe;
        throw new AssertionError("no MoE layer");
    }

    private static Map<String, float[]> grads(Module model) {
        Map<String, float[]> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Parameter> p : model.namedParameters().entrySet()) {
            Tensor grad = p.getValue().value().grad();
            out.put(p.getKey(), grad == null ? null : grad.toFloatArray());
        }
        return out;
    }

    private static void assertSameStep(Step expected, Step actual) {
        assertEquals(expected.loss(), actual.loss(), 1e-6 * Math.abs(expected.loss()), "task loss");
        assertEquals(expected.aux(), actual.aux(), 1e-6 * Math.abs(expected.aux()), "auxiliary loss");
        assertEquals(expected.metrics().keySet(), actual.metrics().keySet(), "metric names");
        expected.metrics().forEach((name, v) -> assertEquals(v, actual.metrics().get(name), 1e-6, name));
        assertEquals(expected.grads().keySet(), actual.grads().keySet(), "gradient names");
        List<String> missing = new ArrayList<>();
        expected.grads().forEach((name, e) -> {
            float[] a = actual.grads().get(name);
            if (e == null || a == null) {
                if (e != a) missing.add(name);
                return;
            }
            for (int i = 0; i < e.length; i++) {
                if (Math.abs(e[i] - a[i]) > 1e-5 * Math.max(1e-2, Math.abs(e[i]))) {
                    fail(name + "[" + i + "]: checkpointed " + a[i] + ", plain " + e[i]);
                }
            }
        });
        assertEquals(List.of(), missing, "gradients present in one run only");
    }

    @Test
    void checkpointedMoeLayersWithJitterGiveTheSameLossesMetricsAndGradients() {
        Step plain = layerStep(false, LOAD_BALANCING), checkpointed = layerStep(true, LOAD_BALANCING);
        assertSameStep(plain, checkpointed);
        // The comparison sees the auxiliary losses' gradient: without it the gate's gradient differs.
        float[] withAux = plain.grads().get("first.gate.weight"), without = layerStep(false, 0).grads().get("first.gate.weight");
        assertNotEquals(java.util.Arrays.toString(withAux), java.util.Arrays.toString(without));
    }

    private static Step gptStep(boolean checkpointed, MoeLayers moe) {
        GptConfig config = GptConfig.of(11, 16, 2, 2, 12).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU);
        Gpt gpt = new Gpt(config, moe, new Generator(3), 0.1).activationCheckpointing(checkpointed);
        gpt.train();
        Tensor ids = Tensor.fromArray(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 1, 4, 1, 5, 9, 2}, 2, 8);
        Tensor targets = Tensor.fromArray(new long[] {2, 3, 4, 5, 6, 7, 8, 9, 3, 1, 4, 1, 5, 9, 2, 6}, 2, 8);
        Tensor task = gpt.loss(ids, targets);
        Tensor aux = gpt.auxiliaryLoss();
        Map<String, Double> metrics = ForwardMetrics.of(gpt).values();
        task.add(aux).mul(SCALE).backward();
        return new Step(task.item(), aux.item(), metrics, grads(gpt));
    }

    @Test
    void aCheckpointedMoeGptTrainsOnTheSameLossesMetricsAndGradients() {
        MoeLayers moe = new MoeLayers(4, 2, 24, Dispatch.dropless(), true, 0, 2, LOAD_BALANCING, Z_LOSS);
        assertSameStep(gptStep(false, moe), gptStep(true, moe));
    }

    /** The balancing loss formed across layers (Mixtral's, from each layer's mean router probabilities) reaches the routers through the reruns too. */
    @Test
    void aCheckpointedMoeGptWithTheBalancingLossAcrossLayersTrainsOnTheSameGradients() {
        MoeLayers moe = new MoeLayers(4, 2, 24, Dispatch.dropless(), true, 0, 1, LOAD_BALANCING, Z_LOSS)
                .withLoadBalancing(LoadBalancing.ACROSS_LAYERS);
        Step plain = gptStep(false, moe);
        assertSameStep(plain, gptStep(true, moe));
        assertNotEquals(plain.aux(), gptStep(false, moe.withLoadBalancing(LoadBalancing.PER_LAYER)).aux(), "the two forms differ");
    }
}
