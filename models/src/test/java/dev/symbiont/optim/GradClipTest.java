package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.symbiont.optim.Scalars.param;
import static dev.symbiont.optim.Scalars.setGrad;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class GradClipTest {
    // Gradients (3, 4) and (12): global norm sqrt(9 + 16 + 144) = 13.
    private final Parameter a = param(0f, 0f), b = param(0f), none = param(0f);

    GradClipTest() {
        setGrad(a, 3f, 4f);
        setGrad(b, 12f);
    }

    @Test
    void returnsTheGlobalNormAcrossParameters() {
        assertEquals(13.0, GradClip.clipGlobalNorm(List.of(a, b, none), 100), 1e-6);
    }

    @Test
    void clipsToMaxNormKeepingTheDirection() {
        double norm = GradClip.clipGlobalNorm(List.of(a, b, none), 6.5);
        assertEquals(13.0, norm, 1e-6);
        double c = 6.5 / (13 + 1e-6);
        assertArrayEquals(new float[] {(float) (3 * c), (float) (4 * c)}, a.grad().toFloatArray(), 1e-6f);
        assertArrayEquals(new float[] {(float) (12 * c)}, b.grad().toFloatArray(), 1e-6f);
        assertEquals(6.5, GradClip.clipGlobalNorm(List.of(a, b), 100), 1e-5);
    }

    @Test
    void leavesGradientsBelowMaxNormAlone() {
        Tensor before = a.grad();
        GradClip.clipGlobalNorm(List.of(a, b), 13.5);
        assertSame(before, a.grad());
        assertArrayEquals(new float[] {12f}, b.grad().toFloatArray());
    }

    @Test
    void countsATiedParameterOnce() {
        assertEquals(13.0, GradClip.clipGlobalNorm(List.of(a, b, b), 100), 1e-6);
    }

    @Test
    void rejectsANonPositiveMaxNorm() {
        var e = assertThrows(IllegalArgumentException.class, () -> GradClip.clipGlobalNorm(List.of(a), 0));
        assertEquals("GradClip: max norm must be > 0, got 0.0", e.getMessage());
    }

    @Test
    void clipsOnTheDeviceToTheSameGradientsAndReturnsTheNormAsATensor() {
        Tensor norm = GradClip.clipGradNorm(List.of(a, b, b, none), 6.5);
        assertEquals(0, norm.dim());
        assertEquals(13.0, norm.item(), 1e-5);
        double c = 6.5 / (13 + 1e-6);
        assertArrayEquals(new float[] {(float) (3 * c), (float) (4 * c)}, a.grad().toFloatArray(), 1e-6f);
        assertArrayEquals(new float[] {(float) (12 * c)}, b.grad().toFloatArray(), 1e-6f);
    }

    @Test
    void clipOnTheDeviceMultipliesByExactlyOneUnderTheNorm() {
        GradClip.clipGradNorm(List.of(a, b), 13.5);
        assertArrayEquals(new float[] {3f, 4f}, a.grad().toFloatArray());
        assertArrayEquals(new float[] {12f}, b.grad().toFloatArray());
        assertEquals(0f, GradClip.clipGradNorm(List.of(none), 1).item());
        assertThrows(IllegalArgumentException.class, () -> GradClip.clipGradNorm(List.of(a), -1));
    }
}
