package dev.symbiont.optim;

import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.symbiont.optim.Scalars.param;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LrScheduleTest {
    // base 1.0, min 0.1, 10 warm-up steps, 110 total: the decay spans steps 10..110.
    private final LrSchedule cosine = LrSchedule.warmupCosine(1.0, 0.1, 10, 110);

    @Test
    void warmupRisesLinearlyFromZeroToTheBaseLr() {
        assertEquals(0.0, cosine.lr(0));
        assertEquals(0.1, cosine.lr(1), 1e-15);
        assertEquals(0.5, cosine.lr(5), 1e-15);
        assertEquals(1.0, cosine.lr(10), 1e-15);
    }

    @Test
    void cosineDecaysToTheMinimumAndStaysThere() {
        // a quarter of the way: 0.1 + 0.9·(1 + cos(π/4))/2
        assertEquals(0.1 + 0.45 * (1 + Math.sqrt(0.5)), cosine.lr(35), 1e-12);
        assertEquals(0.55, cosine.lr(60), 1e-12);
        assertEquals(0.1 + 0.45 * (1 + Math.cos(Math.PI * 99 / 100)), cosine.lr(109), 1e-12);
        assertEquals(0.1, cosine.lr(110));
        assertEquals(0.1, cosine.lr(1_000_000));
        assertTrue(cosine.lr(60) > cosine.lr(61), "decreasing");
    }

    @Test
    void noWarmupStartsAtTheBaseLr() {
        LrSchedule s = LrSchedule.warmupCosine(2.0, 0.0, 0, 100);
        assertEquals(2.0, s.lr(0));
        assertEquals(1.0, s.lr(50), 1e-12);
    }

    @Test
    void stepDecayMultipliesByGammaEveryStepSize() {
        LrSchedule s = LrSchedule.stepDecay(0.8, 0.5, 10);
        assertEquals(0.8, s.lr(0));
        assertEquals(0.8, s.lr(9));
        assertEquals(0.4, s.lr(10));
        assertEquals(0.2, s.lr(25));
        assertEquals(0.8 / 1024, s.lr(100));
    }

    @Test
    void constantIsConstant() {
        LrSchedule s = LrSchedule.constant(3e-4);
        assertEquals(3e-4, s.lr(0));
        assertEquals(3e-4, s.lr(123_456));
    }

    @Test
    void applyToSetsEveryGroupsLr() {
        Parameter a = param(1f), b = param(1f);
        SGD sgd = new SGD(List.of(new ParamGroup("a", Map.of("a", a)), new ParamGroup("b", Map.of("b", b), 0.0)), SGD.options(1));
        assertEquals(0.5, cosine.applyTo(sgd, 5), 1e-15);
        assertEquals(0.5, sgd.groups().get(0).lr(), 1e-15);
        assertEquals(0.5, sgd.groups().get(1).lr(), 1e-15);
    }

    @Test
    void rejectsInconsistentSchedules() {
        var e = assertThrows(IllegalArgumentException.class, () -> LrSchedule.warmupCosine(1.0, 0.1, 20, 10));
        assertTrue(e.getMessage().startsWith("WarmupCosine:") && e.getMessage().contains("20"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LrSchedule.warmupCosine(0.1, 1.0, 0, 10));
        assertTrue(e.getMessage().contains("min lr 1.0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LrSchedule.stepDecay(1.0, 1.5, 10));
        assertTrue(e.getMessage().startsWith("StepDecay:") && e.getMessage().contains("1.5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LrSchedule.constant(-1e-3));
        assertTrue(e.getMessage().contains("-0.001"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cosine.lr(-1));
    }
}
