package dev.symbiont.nn.mamba;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.block.MixerContext;
import dev.symbiont.nn.block.SequenceMixer;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Backpropagates Σ out² through a mixer and checks that the input and every parameter get a finite, non-zero gradient. */
final class MixerGradients {
    private MixerGradients() {}

    /** @param u (batch, L, dModel), requiring grad */
    static void assertEveryParameterGetsAGradient(SequenceMixer m, Tensor u) {
        m.forward(u, new MixerContext(null, true, null)).square().sum().backward();
        assertNotNull(u.grad());
        for (Map.Entry<String, Parameter> p : m.namedParameters().entrySet()) {
            assertNotNull(p.getValue().grad(), p.getKey());
            float norm = p.getValue().grad().abs().sum().item();
            assertTrue(norm > 0 && Float.isFinite(norm), p.getKey() + ": |grad| = " + norm);
        }
    }
}
