package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.nn.block.MixerContext;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Mamba-2 mixer: Hugging Face's Mamba2Mixer keys and shapes, mamba-ssm's initialisation,
 * causality, gradients to every parameter and states of another mixer refused. Decoding
 * against the full forward is in {@code Mamba2LMTest}.
 */
class Mamba2MixerTest {
    /** d_model 8, 4 heads of 4, N 4 in 2 groups, kernel 4, chunk 3: d_inner 16, conv_dim 16 + 2·2·4 = 32. */
    static final Mamba2Config SMALL = new Mamba2Config(8, 4, 4, 4, 2, 4, 3);

    private static final MixerContext WHOLE = new MixerContext(null, true, null);

    private static Mamba2Mixer mixer() { return new Mamba2Mixer(SMALL, new Generator(1)); }

    @Test
    void stateDictKeysAndShapesAreHuggingFacesMamba2Mixer() {
        Map<String, int[]> expected = new LinkedHashMap<>();
        expected.put("in_proj.weight", new int[] {16 + 32 + 4, 8});
        expected.put("conv1d.weight", new int[] {32, 1, 4});
        expected.put("conv1d.bias", new int[] {32});
        expected.put("dt_bias", new int[] {4});
        expected.put("A_log", new int[] {4});
        expected.put("D", new int[] {4});
        expected.put("norm.weight", new int[] {16});
        expected.put("out_proj.weight", new int[] {8, 16});
        Map<String, Tensor> actual = mixer().stateDict();
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((k, s) -> assertArrayEquals(s, actual.get(k).shape(), k));
        assertEquals("mixer", mixer().blockKey());
    }

    @Test
    void defaultsAndInitialisationFollowMambaSsm() {
        Mamba2Config c = Mamba2Config.of(768);
        assertEquals(new Mamba2Config(768, 24, 64, 64, 1, 4, 256), c, "Mamba-2-130M's shape, N 64");
        assertEquals(new Mamba2Config(32, 8, 8, 16, 1, 4, 256), Mamba2Config.of(32, 2, 0, 16), "small widths keep eight heads");
        var e = assertThrows(IllegalArgumentException.class, () -> Mamba2Config.of(32, 2, 24, 16));
        assertTrue(e.getMessage().contains("headDim 24 must divide d_inner 64"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SMALL.withGroups(3));

        Mamba2Mixer m = new Mamba2Mixer(new Mamba2Config(8, 64, 1, 4, 1, 4, 8), new Generator(2));
        Map<String, Tensor> s = m.stateDict();
        double lowest = Double.MAX_VALUE, highest = 0;
        for (float aLog : s.get("A_log").toFloatArray()) {
            double a = Math.exp(aLog);
            lowest = Math.min(lowest, a);
            highest = Math.max(highest, a);
        }
        assertTrue(lowest >= 1 && lowest < 3 && highest <= 16 && highest > 14, "A uniform in [1, 16]: " + lowest + " .. " + highest);
        for (float v : s.get("D").toFloatArray()) assertEquals(1f, v);
        for (float v : s.get("norm.weight").toFloatArray()) assertEquals(1f, v);
        for (float b : s.get("dt_bias").toFloatArray()) {
            double dt = Math.log1p(Math.exp(b));
            assertTrue(dt >= 0.99e-3 && dt <= 0.1001, "softplus(dt_bias) = " + dt);
        }
    }

    @Test
    void theOutputAtAPositionDependsOnlyOnEarlierInputsAcrossChunks() {
        Mamba2Mixer m = mixer();
        Tensor u = Tensor.randn(new Generator(3), 2, 10, 8);
        Tensor changed = Tensor.cat(java.util.List.of(u.narrow(1, 0, 7), u.narrow(1, 7, 3).add(3.0)), 1);   // positions 7.. differ
        float[] before = m.forward(u, WHOLE).narrow(1, 0, 7).toFloatArray(), after = m.forward(changed, WHOLE).narrow(1, 0, 7).toFloatArray();
        assertArrayEquals(before, after, 1e-6f, "positions 0..6, in chunks 0..2 of 3");
        float[] later = m.forward(changed, WHOLE).narrow(1, 7, 3).toFloatArray(), orig = m.forward(u, WHOLE).narrow(1, 7, 3).toFloatArray();
        double moved = 0;
        for (int i = 0; i < later.length; i++) moved += Math.abs(later[i] - orig[i]);
        assertTrue(moved > 1e-2, "the changed positions' outputs change: " + moved);
    }

    @Test
    void everyParameterGetsAGradient() {
        MixerGradients.assertEveryParameterGetsAGradient(mixer(), Tensor.randn(new Generator(4), 2, 7, 8).requiresGrad(true));
    }

    @Test
    void theScanAndTheChunkedFormGiveTheSameOutputAndGradients() {
        Tensor u = Tensor.randn(new Generator(7), 2, 10, 8);                             // 4 chunks of 3, the last short
        Mamba2Mixer scan = mixer().ssdImpl(SsdImpl.SCAN), chunked = mixer().ssdImpl(SsdImpl.CHUNKED);
        Tensor us = u.detach().requiresGrad(true), uc = u.detach().requiresGrad(true);
        Tensor ys = scan.forward(us, WHOLE), yc = chunked.forward(uc, WHOLE);
        assertArrayEquals(yc.toFloatArray(), ys.toFloatArray(), 1e-5f, "output");
        ys.square().sum().backward();
        yc.square().sum().backward();
        assertArrayEquals(uc.grad().toFloatArray(), us.grad().toFloatArray(), 1e-4f, "input gradient");
        chunked.namedParameters().forEach((name, p) -> assertArrayEquals(p.grad().toFloatArray(),
                scan.namedParameters().get(name).grad().toFloatArray(), 1e-4f, name));
    }

    @Test
    void autoRunsTheScanWhereTheBackendHasItsOwnScanKernelsElseTheChunkedForm() {
        Backend cpu = Tensor.zeros(1).backend();
        assertEquals(SsdImpl.SCAN, SsdImpl.AUTO.on(cpu), "the CPU backend's fused scan: " + cpu.name());
        assertEquals(SsdImpl.CHUNKED, SsdImpl.AUTO.on(new ReferenceBackend()), "a backend without scan kernels");
        try (var reference = FusedKernels.forceReference(ScanKernels.FAMILY)) {
            assertEquals(SsdImpl.CHUNKED, SsdImpl.AUTO.on(cpu), "the scan forced to its materialising reference");
        }
        assertEquals(SsdImpl.CHUNKED, SsdImpl.CHUNKED.on(cpu));
        assertEquals(SsdImpl.SCAN, SsdImpl.SCAN.on(new ReferenceBackend()));
        assertEquals(SsdImpl.AUTO, mixer().ssdImpl(), "the default, -Dsymbiont.mamba2.ssd unset");
        var e = assertThrows(IllegalArgumentException.class, () -> SsdImpl.parse("fused"));
        assertTrue(e.getMessage().contains("symbiont.mamba2.ssd") && e.getMessage().contains("'fused'"), e.getMessage());
        assertEquals(SsdImpl.CHUNKED, SsdImpl.parse(" Chunked"));
    }

    @Test
    void aStateFromAnotherMixerOrModelIsRefused() {
        Mamba2Mixer m = mixer();
        Tensor u = Tensor.randn(new Generator(6), 1, 3, 8);
        var e = assertThrows(IllegalArgumentException.class,
                () -> m.forward(u, new MixerContext(null, true, new MambaMixer(new MambaConfig(8, 16, 4, 1, 4), new Generator(1)).newState(8))));
        assertTrue(e.getMessage().contains("Mamba2Mixer") && e.getMessage().contains("State"), e.getMessage());

        Mamba2Mixer wider = new Mamba2Mixer(SMALL.withState(8), new Generator(1));
        Mamba2Mixer.State state = wider.newState(8);
        wider.forward(u, new MixerContext(null, true, state));
        var e2 = assertThrows(IllegalArgumentException.class, () -> m.forward(u, new MixerContext(null, true, state)));
        assertTrue(e2.getMessage().contains("another model") && e2.getMessage().contains("[1, 4, 4, 8]"), e2.getMessage());
        assertThrows(IllegalArgumentException.class, () -> m.forward(u, new MixerContext(null, false, null)));
        assertThrows(IllegalArgumentException.class, () -> m.forward(Tensor.randn(new Generator(1), 1, 3, 5), WHOLE));
    }
}
