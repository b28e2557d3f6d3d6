package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mamba-2's chunked SSD against the recurrence it computes, walked position by position in
 * double precision: h_t = exp(Δ_t·A)·h_{t−1} + Δ_t·x_t B_tᵀ, y_t = h_t C_t + D·x_t.
 */
class SsdTest {
    @ParameterizedTest(name = "L {1}, chunk {2}, heads {3}, groups {4}, initial state {5}")
    @CsvSource({
            "1, 7, 3, 2, 1, false",      // L not a multiple of the chunk
            "2, 7, 3, 4, 2, true",       // grouped B and C, from a state
            "3, 1, 4, 2, 2, true",       // L = 1
            "4, 12, 4, 3, 3, false",     // L a multiple of the chunk, one group per head
            "5, 5, 256, 2, 1, true"})    // L ≤ chunk: one quadratic block
    void chunkedSsdEqualsTheStepByStepRecurrence(long seed, int len, int chunk, int heads, int groups, boolean withState) {
        SsdReference.Case k = SsdReference.Case.random(seed, 2, len, heads, 3, groups, 4, withState);
        Ssd.Output out = Ssd.chunked(k.x(), k.dt(), k.a(), k.b(), k.c(), k.d(), k.h0(), chunk);
        double[][] expected = SsdReference.recurrence(k);
        assertArrayEquals(new int[] {2, len, heads, 3}, out.y().shape());
        assertArrayEquals(new int[] {2, heads, 3, 4}, out.finalState().shape());
        SsdReference.assertClose(expected[0], out.y().toFloatArray(), "y");
        SsdReference.assertClose(expected[1], out.finalState().toFloatArray(), "final state");
    }

    @Test
    void oneStepAtATimeEqualsTheRecurrence() {
        SsdReference.Case k = SsdReference.Case.random(6, 2, 5, 4, 3, 2, 4, true);
        Tensor h = k.h0();
        List<Tensor> ys = new ArrayList<>();
        for (int t = 0; t < 5; t++) {
            Ssd.Output o = Ssd.step(h, k.x().select(1, t), k.dt().select(1, t), k.a(), k.b().select(1, t), k.c().select(1, t), k.d());
            h = o.finalState();
            ys.add(o.y());                                                         // (batch, heads, P)
        }
        double[][] expected = SsdReference.recurrence(k);
        SsdReference.assertClose(expected[0], Tensor.stack(ys, 1).toFloatArray(), "y");
        SsdReference.assertClose(expected[1], h.toFloatArray(), "final state");
    }

    @Test
    void gradientsOfEveryInputMatchFiniteDifferences() {
        Generator g = new Generator(7);
        GradCheck.check("ssd", in -> {
            Ssd.Output o = Ssd.chunked(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), in.get(6), 2);
            return Tensor.cat(List.of(o.y().reshape(o.y().numel()), o.finalState().reshape(o.finalState().numel())), 0);
        }, SsdReference.gradCheckInputs(g));
    }

    @Test
    void badShapesAreRefusedNamingTheOpAndEveryShape() {
        SsdReference.Case k = SsdReference.Case.random(8, 1, 4, 4, 2, 2, 3, false);
        SsdReference.assertRefusesThreeGroupsOfFourHeads(k, b -> Ssd.chunked(k.x(), k.dt(), k.a(), b, k.c(), k.d(), null, 2));
        assertThrows(IllegalArgumentException.class, () -> Ssd.chunked(k.x(), k.dt(), k.a().narrow(0, 0, 3), k.b(), k.c(), k.d(), null, 2));
        assertThrows(IllegalArgumentException.class, () -> Ssd.chunked(k.x(), k.dt(), k.a(), k.b(), k.c(), k.d(), Tensor.zeros(1, 4, 2, 2), 2));
        assertThrows(IllegalArgumentException.class, () -> Ssd.chunked(k.x(), k.dt(), k.a(), k.b(), k.c(), k.d(), null, 0));
    }
}
