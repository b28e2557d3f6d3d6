package dev.symbiont.core.autograd;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.AllocationOrder;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * How a leaf's {@code grad()} is accumulated: the first gradient made during a backward is kept
 * without a copy, later ones are added in place into the gradient autograd made (PyTorch's
 * AccumulateGrad), and nothing the caller holds or another leaf holds is ever written.
 */
class LeafGradAccumulationTest {
    private static Tensor leaf(float... values) { return Tensor.fromArray(values, values.length).requiresGrad(true); }

    @Test
    void aGradTakenBeforeASecondBackwardSeesTheSumAsInPyTorch() {
        Tensor w = leaf(1, 2, 3);
        w.mul(2.0).sum().backward();
        Tensor held = w.grad();
        w.mul(w).sum().backward();
        assertArrayEquals(new float[] {4, 6, 8}, held.toFloatArray(), "accumulated in place");
        assertArrayEquals(new float[] {4, 6, 8}, w.grad().toFloatArray());
    }

    @Test
    void aGradTheCallerSetIsNotWrittenByTheNextBackward() {
        Tensor w = leaf(1, 2);
        Tensor mine = Tensor.fromArray(new float[] {10, 20}, 2);
        w.setGrad(mine);
        w.mul(3.0).sum().backward();
        assertArrayEquals(new float[] {10, 20}, mine.toFloatArray());
        assertArrayEquals(new float[] {13, 23}, w.grad().toFloatArray());
        w.mul(1.0).sum().backward(); // the sum autograd made is its own again: in place from here
        assertArrayEquals(new float[] {14, 24}, w.grad().toFloatArray());
    }

    @Test
    void twoLeavesHandedOneGradientTensorGetTwoBuffers() {
        Tensor a = leaf(1, 2), b = leaf(3, 4);
        Tensor gradient = Tensor.fromArray(new float[] {1, -1}, 2);
        for (int pass = 1; pass <= 2; pass++) a.add(b).backward(gradient); // add's rule hands g to both inputs
        assertNotSame(a.grad().storage(), b.grad().storage());
        assertArrayEquals(new float[] {2, -2}, a.grad().toFloatArray());
        assertArrayEquals(new float[] {2, -2}, b.grad().toFloatArray());
        assertArrayEquals(new float[] {1, -1}, gradient.toFloatArray(), "the caller's gradient is not written");
    }

    @Test
    void theCallersGradientOfALeafIsCopiedNotKept() {
        Tensor x = leaf(1, 2);
        Tensor gradient = Tensor.fromArray(new float[] {5, 6}, 2);
        x.backward(gradient);
        x.backward(gradient);
        assertArrayEquals(new float[] {5, 6}, gradient.toFloatArray());
        assertArrayEquals(new float[] {10, 12}, x.grad().toFloatArray());
    }

    @Test
    void aGradientMadeDuringBackwardIsKeptWithoutACopy() {
        Tensor w = leaf(1, 2, 3, 4), c = Tensor.fromArray(new float[] {2, 3, 4, 5}, 4), g = Tensor.fromArray(new float[] {1, 1, 2, 2}, 4);
        long before = AllocationOrder.current();
        g.mul(c); // mul's rule for w: one new buffer
        long ruleBuffers = AllocationOrder.current() - before;
        Tensor y = w.mul(c);
        before = AllocationOrder.current();
        y.backward(g);
        assertEquals(ruleBuffers, AllocationOrder.current() - before, "backward made no buffer beyond the rule's");
        assertArrayEquals(new float[] {2, 3, 8, 10}, w.grad().toFloatArray());
        y = w.mul(c);
        before = AllocationOrder.current();
        y.backward(g);
        assertEquals(ruleBuffers, AllocationOrder.current() - before, "the second gradient is added in place");
        assertArrayEquals(new float[] {4, 6, 16, 20}, w.grad().toFloatArray());
    }
}
