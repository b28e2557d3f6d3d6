package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.block.MixerContext;
import dev.symbiont.nn.block.CausalConvMixer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Mamba mixer: Hugging Face's key names and shapes, the paper's initialisation, causality,
 * gradients to every parameter, step-mode decoding equal to the full forward, and states
 * from another mixer refused. The causal conv against a direct loop.
 */
class MambaMixerTest {
    private static final MambaConfig SMALL = new MambaConfig(8, 16, 4, 2, 4);

    private static MambaMixer mixer() { return new MambaMixer(SMALL, new Generator(1)); }

    private static final MixerContext WHOLE = new MixerContext(null, true, null);

    @Test
    void stateDictKeysAndShapesAreHuggingFacesMambaMixer() {
        Map<String, int[]> shapes = new LinkedHashMap<>();
        mixer().stateDict().forEach((k, v) -> shapes.put(k, v.shape()));
        Map<String, int[]> expected = new LinkedHashMap<>();
        expected.put("in_proj.weight", new int[] {32, 8});
        expected.put("conv1d.weight", new int[] {16, 1, 4});
        expected.put("conv1d.bias", new int[] {16});
        expected.put("x_proj.weight", new int[] {2 + 2 * 4, 16});
        expected.put("dt_proj.weight", new int[] {16, 2});
        expected.put("dt_proj.bias", new int[] {16});
        expected.put("A_log", new int[] {16, 4});
        expected.put("D", new int[] {16});
        expected.put("out_proj.weight", new int[] {8, 16});
        assertEquals(expected.keySet(), shapes.keySet());
        expected.forEach((k, s) -> assertArrayEquals(s, shapes.get(k), k));
        assertEquals("mixer", mixer().blockKey());
    }

    @Test
    void defaultsAndInitialisationFollowThePaper() {
        MambaConfig c = MambaConfig.of(768);
        assertEquals(new MambaConfig(768, 1536, 16, 48, 4), c);
        MambaMixer m = mixer();
        float[] aLog = m.stateDict().get("A_log").toFloatArray();
        for (int ch = 0; ch < 16; ch++) for (int n = 0; n < 4; n++) assertEquals(Math.log(n + 1), aLog[ch * 4 + n], 1e-6);
        for (float v : m.stateDict().get("D").toFloatArray()) assertEquals(1f, v);
        for (float b : m.stateDict().get("dt_proj.bias").toFloatArray()) {
            double dt = Math.log1p(Math.exp(b));
            assertTrue(dt >= 0.99e-3 && dt <= 0.1001, "softplus(dt bias) = " + dt);
        }
    }

    @Test
    void theOutputAtAPositionDependsOnlyOnEarlierInputs() {
        MambaMixer m = mixer();
        Generator g = new Generator(2);
        Tensor u = Tensor.randn(g, 2, 9, 8);
        float[] before = m.forward(u, WHOLE).toFloatArray();
        float[] noise = new float[2 * 9 * 8];
        for (int b = 0; b < 2; b++) for (int i = 0; i < 8; i++) noise[(b * 9 + 6) * 8 + i] = 3f; // change position 6 only
        float[] after = m.forward(u.add(Tensor.fromArray(noise, 2, 9, 8)), WHOLE).toFloatArray();
        for (int b = 0; b < 2; b++) {
            for (int t = 0; t < 9; t++) {
                for (int i = 0; i < 8; i++) {
                    int k = (b * 9 + t) * 8 + i;
                    if (t < 6) assertEquals(before[k], after[k], 0f, "position " + t);
                }
            }
        }
    }

    @Test
    void everyParameterGetsAGradient() {
        MixerGradients.assertEveryParameterGetsAGradient(mixer(), Tensor.randn(new Generator(3), 2, 7, 8).requiresGrad(true));
    }

    @ParameterizedTest(name = "step {0}")
    @EnumSource(MambaMixer.Step.class)
    void stepModeDecodingEqualsTheFullForward(MambaMixer.Step how) {
        MambaMixer m = mixer().step(how);
        Tensor u = Tensor.randn(new Generator(4), 2, 11, 8);
        float[] full = m.forward(u, WHOLE).toFloatArray();
        for (int prefill : new int[] {1, 2, 5}) {
            MambaMixer.State state = m.newState(64);
            MixerContext ctx = new MixerContext(null, true, state);
            List<Tensor> parts = new ArrayList<>();
            parts.add(m.forward(u.narrow(1, 0, prefill), ctx));                    // the parallel scan
            for (int t = prefill; t < 11; t++) parts.add(m.forward(u.narrow(1, t, 1), ctx)); // one token at a time
            parts.add(m.forward(u.narrow(1, 11, 0), ctx));
            float[] stepped = Tensor.cat(parts, 1).toFloatArray();
            assertEquals(full.length, stepped.length);
            for (int i = 0; i < full.length; i++) assertEquals(full[i], stepped[i], 1e-4, "prefill " + prefill + ", element " + i);
            assertEquals(11, state.length());
            assertArrayEquals(new int[] {2, 16, 3}, state.conv().shape());
            assertArrayEquals(new int[] {2, 16, 4}, state.ssm().shape());
        }
    }

    @Test
    void theFusedStepEqualsItsTensorOpsTwinTokenByToken() {
        MambaMixer fused = mixer(), ops = mixer().step(MambaMixer.Step.TENSOR_OPS);
        assertEquals(MambaMixer.Step.FUSED, fused.step(), "the default");
        Tensor u = Tensor.randn(new Generator(8), 2, 9, 8);
        MambaMixer.State fs = fused.newState(16), os = ops.newState(16);
        MixerContext fc = new MixerContext(null, true, fs), oc = new MixerContext(null, true, os);
        assertArrayEquals(ops.forward(u.narrow(1, 0, 2), oc).toFloatArray(), fused.forward(u.narrow(1, 0, 2), fc).toFloatArray(), "prefill");
        for (int t = 2; t < 9; t++) {
            float[] expected = ops.forward(u.narrow(1, t, 1), oc).toFloatArray(), actual = fused.forward(u.narrow(1, t, 1), fc).toFloatArray();
            assertArrayEquals(expected, actual, 1e-5f, "token " + t);
            assertArrayEquals(os.ssm().toFloatArray(), fs.ssm().toFloatArray(), 1e-5f, "h after token " + t);
        }
        double moved = 0;                                                          // the tokens do move the state
        for (float v : fs.ssm().toFloatArray()) moved += Math.abs(v);
        assertTrue(moved > 1e-3, "|h| = " + moved);
    }

    @Test
    void aChunkAfterThePrefillContinuesTheSequenceToo() {
        MambaMixer m = mixer();
        Tensor u = Tensor.randn(new Generator(5), 1, 10, 8);
        float[] full = m.forward(u, WHOLE).toFloatArray();
        MambaMixer.State state = m.newState(64);
        MixerContext ctx = new MixerContext(null, true, state);
        Tensor first = m.forward(u.narrow(1, 0, 4), ctx), rest = m.forward(u.narrow(1, 4, 6), ctx);
        float[] stepped = Tensor.cat(List.of(first, rest), 1).toFloatArray();
        for (int i = 0; i < full.length; i++) assertEquals(full[i], stepped[i], 1e-4, "element " + i);
    }

    @Test
    void aStateFromAnotherMixerOrModelIsRefused() {
        MambaMixer m = mixer();
        Tensor u = Tensor.randn(new Generator(6), 1, 3, 8);
        var foreign = new MixerContext(null, true, new CausalConvMixer(8, 4, new Generator(1)).newState(8));
        var e = assertThrows(IllegalArgumentException.class, () -> m.forward(u, foreign));
        assertTrue(e.getMessage().contains("MambaMixer") && e.getMessage().contains("Window"), e.getMessage());

        MambaMixer wider = new MambaMixer(SMALL.withState(8), new Generator(1));
        MambaMixer.State state = wider.newState(8);
        wider.forward(u, new MixerContext(null, true, state));
        var e2 = assertThrows(IllegalArgumentException.class, () -> m.forward(u, new MixerContext(null, true, state)));
        assertTrue(e2.getMessage().contains("another model") && e2.getMessage().contains("[1, 16, 8]"), e2.getMessage());

        assertThrows(IllegalArgumentException.class, () -> m.forward(u, new MixerContext(null, false, null)));
        assertThrows(IllegalArgumentException.class, () -> m.forward(Tensor.randn(new Generator(1), 1, 3, 5), WHOLE));
    }

    @Test
    void causalConvMatchesADirectLoop() {
        Generator g = new Generator(7);
        CausalConv1d conv = new CausalConv1d(3, 4, g);
        Tensor x = Tensor.randn(g, 2, 3, 6);
        float[] y = conv.forward(x, null).toFloatArray(), xv = x.toFloatArray();
        float[] w = conv.weight().value().toFloatArray(), bias = conv.bias().value().toFloatArray();
        for (int b = 0; b < 2; b++) for (int c = 0; c < 3; c++) for (int t = 0; t < 6; t++) {
            double acc = bias[c];
            for (int j = 0; j < 4; j++) {
                int src = t - 3 + j;
                if (src >= 0) acc += w[c * 4 + j] * xv[(b * 3 + c) * 6 + src];
            }
            assertEquals(acc, y[(b * 3 + c) * 6 + t], 1e-5, "b " + b + " c " + c + " t " + t);
        }
        var e = assertThrows(IllegalArgumentException.class, () -> conv.forward(x, Tensor.zeros(2, 3, 2)));
        assertTrue(e.getMessage().contains("CausalConv1d") && e.getMessage().contains("[2, 3, 2]"), e.getMessage());
    }
}
