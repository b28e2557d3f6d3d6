package dev.symbiont.core.fused.activation;

import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The activation family: GELU (erf and tanh forms) and SiLU gradients against the reference,
 * on every layout, on odd sizes, and with the broadcast gradient a sum hands back.
 */
public abstract class ActivationConformance extends ConformanceBase {

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void activationGradientsMatchReferenceOnEveryLayout(String layout) {
        assertMatchesReference("gelu " + layout, in -> in.inLayout(layout, 6, 11).mul(3.0).gelu(), ELEMENTWISE);
        assertMatchesReference("gelu tanh " + layout, in -> in.inLayout(layout, 6, 11).mul(3.0).geluTanh(), ELEMENTWISE);
        assertMatchesReference("silu " + layout, in -> in.inLayout(layout, 6, 11).mul(3.0).silu(), ELEMENTWISE);
    }

    @ParameterizedTest(name = "size {0}")
    @ValueSource(ints = {1, 7, 33, 129, 4099})
    void activationGradientsMatchReferenceOnOddSizes(int n) {
        assertMatchesReference("gelu n=" + n, in -> in.randn(1, n).mul(4.0).gelu(), ELEMENTWISE);
        assertMatchesReference("silu n=" + n, in -> in.randn(1, n).mul(4.0).silu(), ELEMENTWISE);
    }

    @Test
    void gradientOfASumReachesTheKernelAsABroadcastScalar() {
        assertMatchesReference("gelu sum", in -> in.randn(5, 9).gelu().sum(), ELEMENTWISE);
        assertMatchesReference("silu sum", in -> in.randn(5, 9).silu().sum(), ELEMENTWISE);
    }
}
