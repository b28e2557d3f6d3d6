package dev.symbiont.core.autograd;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.memory.MemoryTracker;
import dev.symbiont.core.heap.ReleaseCheck;
import dev.symbiont.core.backend.Storage;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A computation's own tensors go back to the pool when nothing can read them any more: at its
 * end without a graph, after the backward pass that ran them with one — never earlier (the
 * poison scope makes a read after release throw), never the result, an input or a tensor whose
 * readers cannot be followed.
 */
class IntermediatesTest {
    private final Generator g = new Generator(5);

    private static boolean released(Tensor t) { return HeapStorage.of(t.storage()).isReleased(); }

    @Test
    void withoutAGraphTheyGoBackWhenTheComputationEnds() {
        Tensor x = Tensor.randn(g, 4, 8);
        try (var poison = ReleaseCheck.poison(); var off = GradMode.disabled()) {
            Intermediates temps = Intermediates.begin();
            Tensor h = temps.add(x.tanh());
            Tensor y = temps.releaseAfter(h.mul(2.0));
            assertTrue(released(h));
            assertFalse(released(y));
            assertFalse(released(x));
        }
    }

    @Test
    void withAGraphTheyGoBackAfterTheBackwardPassThatRanTheirRules() {
        Tensor x = Tensor.randn(g, 4, 8).requiresGrad(true);
        try (var poison = ReleaseCheck.poison()) {
            Intermediates temps = Intermediates.begin();
            Tensor h = temps.add(x.tanh());              // tanh's rule and mul's both read h
            Tensor y = temps.releaseAfter(h.mul(h));
            assertFalse(released(h), "the graph still reads it");
            y.sum().backward();
            assertTrue(released(h));
        }
        float[] t = x.detach().tanh().toFloatArray(), grad = x.grad().toFloatArray();
        for (int i = 0; i < t.length; i++) assertEqualsNear(2 * t[i] * (1 - t[i] * t[i]), grad[i]);
    }

    @Test
    void theGraphDoesNotKeepAliveAnIntermediateNoRuleSaved() {
        Tensor x = Tensor.randn(g, 64, 64).requiresGrad(true);
        Intermediates temps = Intermediates.begin();
        Tensor h = temps.add(x.add(2.0));                // add's rule keeps only shapes
        WeakReference<Storage> storage = new WeakReference<>(h.storage());
        Tensor y = temps.releaseAfter(h.sum());          // a sum keeps only the shape
        h = null;
        for (int i = 0; i < 20 && storage.get() != null; i++) MemoryTracker.collectGarbage();
        assertNull(storage.get(), "the collector's once the forward dropped it, as before intermediates were marked");
        y.backward();                                    // and backward has nothing left to release
        assertArrayEquals(Tensor.ones(64, 64).toFloatArray(), x.grad().toFloatArray(), 0f);
    }

    @Test
    void aRetainedGraphKeepsThemForTheNextPass() {
        Tensor x = Tensor.randn(g, 4, 8).requiresGrad(true);
        try (var poison = ReleaseCheck.poison()) {
            Intermediates temps = Intermediates.begin();
            Tensor h = temps.add(x.exp());
            Tensor y = temps.releaseAfter(h.mul(3.0)).sum();
            y.backward(null, true);
            assertFalse(released(h), "a retained graph runs again");
            y.backward(null, false);
            assertTrue(released(h));
        }
        float[] e = x.detach().exp().toFloatArray(), grad = x.grad().toFloatArray();
        for (int i = 0; i < e.length; i++) assertEqualsNear(6 * e[i], grad[i]);
    }

    @Test
    void neverTheResultAnInputOrATensorWithoutANodeInARecordedGraph() {
        Tensor x = Tensor.randn(g, 4, 8);
        Tensor w = Tensor.randn(g, 4, 8).requiresGrad(true);
        try (var poison = ReleaseCheck.poison()) {
            Intermediates temps = Intermediates.begin();
            temps.add(x);                                // older than begin(): a layer that passed its input on
            Tensor h = temps.add(x.tanh());              // no node (x needs no gradient), yet mul's rule saves it
            Tensor y = h.mul(w);
            temps.add(y.reshape(32));                    // a view of the result
            temps.releaseAfter(y);
            y.sum().backward();
            assertFalse(released(x));
            assertFalse(released(h), "a rule saved it and nothing says when that rule is done");
            assertFalse(released(y));
            assertArrayEquals(x.tanh().toFloatArray(), w.grad().toFloatArray(), 0f);
        }
    }

    @Test
    void anOpsOwnSavedBufferGoesBackAfterTheRuleThatReadsIt() {
        Tensor x = Tensor.randn(g, 4, 8).requiresGrad(true);
        try (var poison = ReleaseCheck.poison()) {
            Tensor derivative;
            Tensor out;
            try (var off = GradMode.disabled()) {
                out = x.mul(x);
                derivative = x.mul(2.0);
            }
            Tensor saved = derivative;
            out = Autograd.record("square", out, grad -> new Tensor[] {grad.mul(saved)}, x);
            Intermediates.savedOnlyBy(out, derivative);
            assertFalse(released(derivative));
            out.sum().backward();
            assertTrue(released(derivative));
        }
        assertArrayEquals(x.detach().mul(2.0).toFloatArray(), x.grad().toFloatArray(), 0f);
    }

    @Test
    void aLaterOutputOfAMultiOutputOpWaitsForTheRuleOfItsFirst() {
        Tensor x = Tensor.randn(g, 4, 8).requiresGrad(true);
        try (var poison = ReleaseCheck.poison()) {
            Intermediates temps = Intermediates.begin();
            Tensor a, b;
            try (var off = GradMode.disabled()) {
                a = x.mul(2.0);
                b = x.mul(3.0);
            }
            Tensor second = b;
            // the pair's rule reads its second output (times 0): released at that output's own node, it would throw
            Autograd.recordPair("pair", a, b, (ga, gb) -> new Tensor[] {ga.mul(2.0).add(gb.mul(3.0)).add(gb.mul(second).mul(0.0))}, x);
            Tensor y = temps.releaseAfter(a.add(temps.add(b).tanh()));
            assertFalse(released(b));
            y.sum().backward();
            assertTrue(released(b));
        }
        float[] t = x.detach().mul(3.0).tanh().toFloatArray(), grad = x.grad().toFloatArray();
        for (int i = 0; i < t.length; i++) assertEqualsNear(2 + 3 * (1 - t[i] * t[i]), grad[i]);
    }

    private static void assertEqualsNear(double expected, float actual) {
        assertTrue(Math.abs(expected - actual) <= 1e-5 * Math.max(1, Math.abs(expected)), "expected " + expected + ", got " + actual);
    }
}
