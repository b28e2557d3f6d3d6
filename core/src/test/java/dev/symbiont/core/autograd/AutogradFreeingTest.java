package dev.symbiont.core.autograd;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.memory.MemoryMeasure;
import dev.symbiont.core.heap.ReleaseCheck;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What backward frees as it goes, as PyTorch does: each node's saved tensors once its rule has
 * run (unless the graph is retained), and each gradient autograd made once its node has used it
 * up — never the caller's gradient, a leaf's {@code grad()}, or a gradient still pending elsewhere.
 */
class AutogradFreeingTest {
    private final Generator g = new Generator(3);

    /** An identity op whose backward shows the gradient it was handed to {@code seen}. */
    private static Tensor spy(Tensor t, List<Tensor> seen) {
        Tensor out;
        try (var off = GradMode.disabled()) {
            out = t.mul(1.0);
        }
        return Autograd.record("spy", out, grad -> {
            seen.add(grad);
            return new Tensor[] {grad.mul(1.0)};
        }, t);
    }

    @Test
    void aGradientAutogradMadeIsReleasedOnceItsNodeHasUsedItUp() {
        List<Tensor> seen = new ArrayList<>();
        Tensor x = Tensor.randn(g, 4, 8).requiresGrad(true);
        Tensor gradient = Tensor.randn(g, 4, 8);
        try (var poison = ReleaseCheck.poison()) { // marks what this thread releases
            spy(spy(x, seen).tanh(), seen).backward(gradient);
        }
        assertEquals(2, seen.size());
        assertFalse(HeapStorage.of(seen.get(0).storage()).isReleased(), "the caller's gradient is the caller's");
        assertTrue(HeapStorage.of(seen.get(1).storage()).isReleased(), "tanh's input gradient, used up by the spy");
        assertFalse(HeapStorage.of(x.grad().storage()).isReleased(), "the leaf's grad() is kept");
        Tensor expected = gradient.mul(Tensor.ones(4, 8).sub(x.detach().tanh().square()));
        assertArrayEquals(expected.toFloatArray(), x.grad().toFloatArray(), 1e-6f);
    }

    @Test
    void aGradientSharedWithAnotherPendingOneIsNotReleasedUntilBothAreUsed() {
        List<Tensor> seen = new ArrayList<>();
        Tensor x = Tensor.randn(g, 4, 8).requiresGrad(true);
        try (var poison = ReleaseCheck.poison()) {
            Tensor a = spy(x, seen), b = spy(x, seen);
            a.add(b).tanh().sum().backward(); // add's rule hands one tensor to both spies
        }
        assertEquals(2, seen.size());
        assertTrue(seen.get(0).storage() == seen.get(1).storage());
        assertTrue(HeapStorage.of(seen.get(0).storage()).isReleased(), "released after the second spy used it");
        float[] grad = x.grad().toFloatArray();
        float[] y = x.detach().mul(2.0).tanh().toFloatArray();
        for (int i = 0; i < grad.length; i++) assertEquals(2 * (1 - y[i] * y[i]), grad[i], 1e-5);
    }

    @Test
    void aFanInsGradientsAreSummedInPlaceIntoOneAutogradMadeNeverIntoTheCallers() {
        List<float[]> seen = new ArrayList<>(); // the values, read while the spy holds them: the buffer is released after
        Tensor x = Tensor.randn(g, 4, 8).requiresGrad(true);
        try (ProfilerSession p = Profiler.start()) {
            Tensor th = x.tanh(), out;
            try (var off = GradMode.disabled()) {
                out = th.mul(1.0);
            }
            Tensor s = Autograd.record("spy", out, grad -> { // spy's identity, keeping a copy of the values it was handed
                seen.add(grad.toFloatArray());
                return new Tensor[] {grad.mul(1.0)};
            }, th);
            s.mul(2.0).add(s.mul(3.0)).add(s.mul(4.0)).sum().backward();
            // three gradients reach the spy: the second and third are added into the first's buffer
            assertEquals(2, p.report().op("add_").orElseThrow().calls());
        }
        assertArrayEquals(Tensor.full(9f, 4, 8).toFloatArray(), seen.get(0));
        float[] t = x.detach().tanh().toFloatArray(), grad = x.grad().toFloatArray();
        for (int i = 0; i < grad.length; i++) assertEquals(9 * (1 - t[i] * t[i]), grad[i], 1e-5);

        // y = u + 2u: add's rule hands the caller's gradient on to u as it is; 2·gradient then joins it out of place
        Tensor gradient = Tensor.randn(g, 4, 8), kept = gradient.clone();
        Tensor u = Tensor.randn(g, 4, 8).requiresGrad(true).tanh();
        u.add(u.mul(2.0)).backward(gradient);
        assertArrayEquals(kept.toFloatArray(), gradient.toFloatArray(), "the caller's gradient is unchanged");
    }

    @Test
    void aSecondBackwardThroughAFreedGraphThrowsAndARetainedOneWorks() {
        Tensor x = Tensor.randn(g, 3, 5).requiresGrad(true);
        Tensor loss = x.tanh().sum();
        loss.backward();
        var e = assertThrows(IllegalStateException.class, loss::backward);
        assertTrue(e.getMessage().contains("second time") && e.getMessage().contains("retainGraph"), e.getMessage());

        x.zeroGrad();
        Tensor kept = x.tanh().sum();
        kept.backward(null, true);
        float[] once = x.grad().toFloatArray();
        kept.backward();
        float[] twice = x.grad().toFloatArray();
        for (int i = 0; i < once.length; i++) assertEquals(2 * once[i], twice[i], 1e-6);
    }

    /**
     * A stack of tanh(h·W) layers: retaining the graph keeps every layer's activations until the
     * end of backward while the weight gradients pile up; freeing them as each layer's backward
     * runs keeps the live set near one copy of either.
     */
    @Test
    void freeingSavedTensorsLowersTheExactPeakOfABackward() {
        Backend be = new ReferenceBackend();
        try (var use = Backends.use(be)) {
            long retained = backwardPeak(be, true), freed = backwardPeak(be, false);
            long layer = 64 * 64 * 4;
            assertTrue(freed <= retained - 3 * layer, "freed " + freed + " vs retained " + retained + " bytes");
        }
    }

    private long backwardPeak(Backend be, boolean retainGraph) {
        int layers = 6;
        Tensor h = Tensor.randn(new Generator(1), 64, 64);
        List<Tensor> weights = new ArrayList<>();
        for (int i = 0; i < layers; i++) weights.add(Tensor.randn(new Generator(10 + i), 64, 64).mul(0.1).requiresGrad(true));
        for (Tensor w : weights) h = h.matmul(w).tanh();
        Tensor loss = h.sum();
        return MemoryMeasure.peakAbove(be, () -> loss.backward(null, retainGraph));
    }
}
