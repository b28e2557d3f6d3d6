package dev.symbiont.core.autograd;

import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Tensor#registerPostAccumulateGradHook}: PyTorch's post-accumulate-grad hook, the signal a
 * data-parallel wrapper needs to start reducing a gradient while backward still runs.
 */
class PostAccumulateGradHookTest {
    private static Tensor leaf(float... values) { return Tensor.fromArray(values, values.length).requiresGrad(true); }

    /** What a hook saw: which leaf, and its gradient at that moment. */
    private record Call(String leaf, float[] grad) {}

    private static Scope record(List<Call> calls, String name, Tensor leaf) {
        return leaf.registerPostAccumulateGradHook(t -> calls.add(new Call(name, t.grad().toFloatArray())));
    }

    @Test
    void fires_once_per_backward_with_the_gradient_summed_over_every_path() {
        Tensor w = leaf(1, 2);
        List<Call> calls = new ArrayList<>();
        record(calls, "w", w);
        w.mul(w).add(w.mul(3.0)).sum().backward(); // d/dw (w² + 3w) = 2w + 3: three paths into w, one call
        assertEquals(1, calls.size());
        assertArrayEquals(new float[] {5, 7}, calls.get(0).grad());
        w.mul(2.0).sum().backward();
        assertEquals(2, calls.size(), "a second backward calls it again");
        assertArrayEquals(new float[] {7, 9}, calls.get(1).grad(), "with the gradient accumulated over both passes");
    }

    @Test
    void fires_in_the_order_the_backward_walk_completes_the_leaves() {
        Tensor w1 = leaf(1, 2), w2 = leaf(3, 4), w3 = leaf(5, 6);
        Tensor x = Tensor.fromArray(new float[] {1, 1}, 2);
        List<Call> calls = new ArrayList<>();
        record(calls, "w1", w1);
        record(calls, "w2", w2);
        record(calls, "w3", w3);
        x.mul(w1).mul(w2).mul(w3).sum().backward(); // a chain of layers: the last layer's gradient is ready first
        assertEquals(List.of("w3", "w2", "w1"), calls.stream().map(Call::leaf).toList());
    }

    @Test
    void a_leaf_the_pass_sends_no_gradient_is_not_called() {
        Tensor used = leaf(1, 2), inGraphWithoutGradient = leaf(3, 4), outsideTheGraph = leaf(5, 6);
        List<Call> calls = new ArrayList<>();
        record(calls, "used", used);
        record(calls, "inGraphWithoutGradient", inGraphWithoutGradient);
        record(calls, "outsideTheGraph", outsideTheGraph);
        // An op with an edge to both inputs whose rule gives the second none (as an index or a mask input gets).
        Tensor out = Autograd.record("first_only", used.detach().add(0.0), g -> new Tensor[] {g, null}, used, inGraphWithoutGradient);
        out.sum().backward();
        assertEquals(List.of("used"), calls.stream().map(Call::leaf).toList());
    }

    @Test
    void closing_the_handle_removes_that_registration_only() {
        Tensor w = leaf(1);
        List<Call> calls = new ArrayList<>();
        Scope first = record(calls, "first", w);
        record(calls, "second", w);
        w.mul(2.0).sum().backward();
        assertEquals(List.of("first", "second"), calls.stream().map(Call::leaf).toList(), "registration order");
        first.close();
        first.close(); // idempotent: must not remove the second registration
        calls.clear();
        w.mul(2.0).sum().backward();
        assertEquals(List.of("second"), calls.stream().map(Call::leaf).toList());
    }

    @Test
    void a_hook_may_remove_itself_while_running() {
        Tensor w = leaf(1);
        int[] count = {0};
        Scope[] handle = new Scope[1];
        handle[0] = w.registerPostAccumulateGradHook(t -> {
            count[0]++;
            handle[0].close();
        });
        w.mul(2.0).sum().backward();
        w.mul(2.0).sum().backward();
        assertEquals(1, count[0]);
    }

    @Test
    void refuses_non_leaves_and_tensors_that_need_no_gradient() {
        Tensor w = leaf(1, 2);
        var nonLeaf = assertThrows(IllegalStateException.class, () -> w.mul(2.0).registerPostAccumulateGradHook(t -> {}));
        assertTrue(nonLeaf.getMessage().contains("registerPostAccumulateGradHook") && nonLeaf.getMessage().contains("leaf"), nonLeaf.getMessage());
        var noGrad = assertThrows(IllegalStateException.class,
                () -> Tensor.fromArray(new float[] {1}, 1).registerPostAccumulateGradHook(t -> {}));
        assertTrue(noGrad.getMessage().contains("does not require grad"), noGrad.getMessage());
    }
}
