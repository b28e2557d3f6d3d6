package dev.symbiont.optim;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The optimizers on the backend's fused step against the same optimizers with the optim
 * family forced to its reference (the tensor-op formulas): parameters and every state buffer
 * within 1e-6 relative after several steps, and a state dict taken earlier left as it was.
 */
class FusedOptimizerStepTest {
    private static final int STEPS = 5;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"adamw", "adam-l2", "adam", "sgd-momentum", "sgd-nesterov", "sgd-dampened-wd"})
    void fusedStepsMatchTheTensorOpReference(String kind) {
        Function<Map<String, Parameter>, Optimizer> make = params -> switch (kind) {
            case "adamw" -> new AdamW(params, AdamW.options(0.01).weightDecay(0.1));
            case "adam-l2" -> new Adam(params, Adam.options(0.01).weightDecay(0.05));
            case "adam" -> new Adam(params, Adam.options(0.003).betas(0.8, 0.95));
            case "sgd-momentum" -> new SGD(params, SGD.options(0.05).momentum(0.9));
            case "sgd-nesterov" -> new SGD(params, SGD.options(0.05).momentum(0.9).nesterov(true));
            case "sgd-dampened-wd" -> new SGD(params, SGD.options(0.05).momentum(0.9).dampening(0.1).weightDecay(0.01));
            default -> throw new IllegalArgumentException(kind);
        };
        Map<String, Parameter> fused = params(), reference = params();
        Optimizer fast = make.apply(fused), slow = make.apply(reference);
        Map<String, Tensor> earlier = null;
        float[] earlierValues = null;
        Generator g = new Generator(11);
        for (int step = 1; step <= STEPS; step++) {
            for (String name : fused.keySet()) {
                Tensor grad = Tensor.randn(g, fused.get(name).value().shape());
                fused.get(name).value().setGrad(grad);
                reference.get(name).value().setGrad(grad.clone());
            }
            fast.step();
            try (var s = FusedKernels.forceReference(OptimKernels.FAMILY)) {
                slow.step();
            }
            if (step == 2) {
                earlier = fast.stateDict();
                earlierValues = stateValues(earlier);
            }
        }
        for (String name : fused.keySet()) {
            assertClose(reference.get(name).value().toFloatArray(), fused.get(name).value().toFloatArray(), kind + " " + name);
        }
        Map<String, Tensor> a = fast.stateDict(), b = slow.stateDict();
        assertTrue(a.keySet().equals(b.keySet()), kind + ": state keys " + a.keySet() + " vs " + b.keySet());
        for (String key : a.keySet()) assertClose(b.get(key).toFloatArray(), a.get(key).toFloatArray(), kind + " " + key);
        assertArrayEquals(earlierValues, stateValues(earlier), kind + ": a state dict taken at step 2 changed in later steps");
    }

    /** Two parameters: one with a ragged vector tail, one split over threads. */
    private static Map<String, Parameter> params() {
        Generator g = new Generator(5);
        Map<String, Parameter> p = new LinkedHashMap<>();
        p.put("small", new Parameter(Tensor.randn(g, 37)));
        p.put("large.weight", new Parameter(Tensor.randn(g, 300, 250)));
        return p;
    }

    private static float[] stateValues(Map<String, Tensor> dict) {
        List<Tensor> buffers = dict.entrySet().stream().filter(e -> e.getKey().startsWith("state.") && !e.getKey().endsWith(".step"))
                .map(e -> e.getValue().reshape(-1)).toList();
        return Tensor.cat(buffers, 0).toFloatArray();
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertTrue(expected.length == actual.length, what + ": sizes " + expected.length + " vs " + actual.length);
        for (int i = 0; i < expected.length; i++) {
            double tol = 1e-6 * Math.abs(expected[i]) + 1e-7;
            assertTrue(Math.abs(expected[i] - actual[i]) <= tol, what + ": element " + i + " is " + actual[i] + ", reference " + expected[i]);
        }
    }
}
