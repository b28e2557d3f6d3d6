package dev.symbiont.amp;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Parameter;
import dev.symbiont.optim.Adam;
import dev.symbiont.optim.GradClip;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.SGD;
import dev.symbiont.optim.StateDictException;
import dev.symbiont.optim.StateScalars;
import dev.symbiont.optim.TinyMlp;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GradScalerTest {
    private final Generator gen = new Generator(17);
    private final Tensor x = Tensor.randn(gen, 8, 2), y = Tensor.randn(gen, 8, 1);

    @Test
    void scalesTheLossByTwoToTheSixteenByDefault() {
        GradScaler scaler = new GradScaler();
        assertEquals(65536.0, scaler.currentScale());
        assertEquals(3f * 65536, scaler.scale(Tensor.scalar(3f)).item());
    }

    @Test
    void anOverflowingGradientSkipsTheStepAndHalvesTheScale() {
        // d(w·1e35)/dw = 1e35, times 2^16 is past float32's 3.4e38: the scaled gradient is inf.
        Parameter w = new Parameter(Tensor.fromArray(new float[] {1f, 2f}));
        Parameter v = new Parameter(Tensor.fromArray(new float[] {3f}));
        SGD sgd = new SGD(Map.of("w", w, "v", v), SGD.options(0.1));
        GradScaler scaler = new GradScaler();
        scaler.scale(w.value().mul(1e35).sum().add(v.value().sum())).backward();
        assertTrue(Float.isInfinite(w.grad().toFloatArray()[0]));

        assertFalse(scaler.step(sgd));
        scaler.update();
        assertArrayEquals(new float[] {1f, 2f}, w.value().toFloatArray());
        assertArrayEquals(new float[] {3f}, v.value().toFloatArray());
        assertEquals(32768.0, scaler.currentScale());
        assertEquals(0, scaler.growthTracker());
    }

    @Test
    void aNaNGradientAlsoSkipsTheStep() {
        Parameter w = new Parameter(Tensor.fromArray(new float[] {1f}));
        SGD sgd = new SGD(Map.of("w", w), SGD.options(0.1));
        GradScaler scaler = new GradScaler();
        w.value().setGrad(Tensor.fromArray(new float[] {Float.NaN}));
        assertFalse(scaler.step(sgd));
        assertArrayEquals(new float[] {1f}, w.value().toFloatArray());
    }

    @Test
    void theScaleDoublesAfterGrowthIntervalCleanSteps() {
        TinyMlp mlp = new TinyMlp(2, 4, 1, 3);
        SGD sgd = new SGD(mlp.namedParameters(), SGD.options(0.01));
        GradScaler scaler = new GradScaler(1024, 2.0, 0.5, 3);
        double[] scales = new double[7];
        for (int i = 0; i < scales.length; i++) {
            sgd.zeroGrad();
            scaler.scale(mlp.forward(x).mseLoss(y)).backward();
            assertTrue(scaler.step(sgd));
            scaler.update();
            scales[i] = scaler.currentScale();
        }
        assertArrayEquals(new double[] {1024, 1024, 2048, 2048, 2048, 4096, 4096}, scales);
        assertEquals(1, scaler.growthTracker());
    }

    @Test
    void scaledStepsMatchUnscaledOnes() {
        TinyMlp plain = new TinyMlp(2, 4, 1, 3), scaled = new TinyMlp(2, 4, 1, 3);
        Optimizer plainAdam = new Adam(plain.namedParameters(), Adam.options(0.01));
        Optimizer scaledAdam = new Adam(scaled.namedParameters(), Adam.options(0.01));
        GradScaler scaler = new GradScaler();
        for (int i = 0; i < 5; i++) {
            plainAdam.zeroGrad();
            plain.forward(x).mseLoss(y).backward();
            plainAdam.step();

            scaledAdam.zeroGrad();
            scaler.scale(scaled.forward(x).mseLoss(y)).backward();
            assertTrue(scaler.step(scaledAdam));
            scaler.update();
        }
        List<Parameter> expected = plain.parameters(), actual = scaled.parameters();
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i).value().toFloatArray(), actual.get(i).value().toFloatArray(), 1e-6f);
        }
    }

    @Test
    void unscaleGivesTheTrueGradientsForClipping() {
        TinyMlp plain = new TinyMlp(2, 4, 1, 3), scaled = new TinyMlp(2, 4, 1, 3);
        plain.forward(x).mseLoss(y).backward();
        SGD sgd = new SGD(scaled.namedParameters(), SGD.options(0.01));
        GradScaler scaler = new GradScaler();
        scaler.scale(scaled.forward(x).mseLoss(y)).backward();
        scaler.unscale(sgd);
        assertEquals(GradClip.clipGlobalNorm(plain.parameters(), 1e9), GradClip.clipGlobalNorm(scaled.parameters(), 1e9), 1e-6);
        assertTrue(scaler.step(sgd)); // does not unscale a second time
        scaler.update();
    }

    @Test
    void enforcesTheCallOrder() {
        Parameter w = new Parameter(Tensor.fromArray(new float[] {1f}));
        SGD sgd = new SGD(Map.of("w", w), SGD.options(0.1));
        GradScaler scaler = new GradScaler();
        assertThrows(IllegalStateException.class, scaler::update);
        w.value().setGrad(Tensor.fromArray(new float[] {1f}));
        scaler.unscale(sgd);
        var e = assertThrows(IllegalStateException.class, () -> scaler.unscale(sgd));
        assertTrue(e.getMessage().contains("SGD"), e.getMessage());
        scaler.step(sgd);
        assertThrows(IllegalStateException.class, () -> scaler.step(sgd));
        scaler.update();
    }

    @Test
    void stateDictRoundTripsAndRejectsWrongKeys() {
        GradScaler scaler = new GradScaler(1024, 2.0, 0.5, 100);
        Parameter w = new Parameter(Tensor.fromArray(new float[] {1f}));
        SGD sgd = new SGD(Map.of("w", w), SGD.options(0.1));
        for (int i = 0; i < 3; i++) {
            w.value().setGrad(Tensor.fromArray(new float[] {1f}));
            scaler.step(sgd);
            scaler.update();
        }
        Map<String, Tensor> state = scaler.stateDict();
        assertEquals(List.of("scale", "growth_tracker"), List.copyOf(state.keySet()));
        GradScaler other = new GradScaler();
        other.loadStateDict(state);
        assertEquals(1024.0, other.currentScale());
        assertEquals(3, other.growthTracker());

        var e = assertThrows(StateDictException.class, () -> other.loadStateDict(Map.of("scale", StateScalars.ofLong(2))));
        assertEquals(List.of("growth_tracker"), e.missing());
        assertEquals(List.of("scale: expected float32 [], got int64 []"), e.mismatched());
    }

    @Test
    void aDisabledScalerPassesEverythingThrough() {
        GradScaler scaler = GradScaler.disabled();
        Tensor loss = Tensor.scalar(2f);
        assertSame(loss, scaler.scale(loss));
        Parameter w = new Parameter(Tensor.fromArray(new float[] {1f}));
        SGD sgd = new SGD(Map.of("w", w), SGD.options(0.5));
        w.value().setGrad(Tensor.fromArray(new float[] {1f}));
        assertTrue(scaler.step(sgd));
        scaler.update();
        assertArrayEquals(new float[] {0.5f}, w.value().toFloatArray());
    }

    @Test
    void rejectsBadFactors() {
        var e = assertThrows(IllegalArgumentException.class, () -> new GradScaler(0, 2, 0.5, 10));
        assertTrue(e.getMessage().startsWith("GradScaler:") && e.getMessage().contains("0.0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new GradScaler(1024, 1.0, 0.5, 10));
        assertThrows(IllegalArgumentException.class, () -> new GradScaler(1024, 2, 1.0, 10));
        assertThrows(IllegalArgumentException.class, () -> new GradScaler(1024, 2, 0.5, 0));
    }
}
