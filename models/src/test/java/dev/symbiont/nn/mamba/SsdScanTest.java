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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mamba-2's SSD on the fused selective scan against the double-precision recurrence and against
 * the chunked matrix-product form: outputs, final states and the gradient of every input.
 */
class SsdScanTest {
    @ParameterizedTest(name = "L {1}, chunk {2}, heads {3}, groups {4}, initial state {5}")
    @CsvSource({
            "1, 7, 3, 1, 1, false",      // one head; L not a multiple of the chunk
            "2, 7, 3, 4, 2, true",       // grouped B and C, from a state
            "3, 1, 4, 2, 2, true",       // L = 1
            "4, 12, 4, 3, 3, false",     // L a multiple of the chunk, one group per head
            "5, 70, 16, 2, 1, true"})    // past the scan's 64-step checkpoints, 5 chunks of the matrix form
    void scanEqualsTheRecurrenceAndTheChunkedFormWithEveryGradient(long seed, int len, int chunk, int heads, int groups,
                                                                   boolean withState) {
        SsdReference.Case k = SsdReference.Case.random(seed, 2, len, heads, 3, groups, 4, withState);
        Tensor gradY = Tensor.randn(new Generator(seed + 100), 2, len, heads, 3);
        List<Tensor> scanIn = leaves(k), chunkedIn = leaves(k);
        Ssd.Output scan = SsdScan.scan(scanIn.get(0), scanIn.get(1), scanIn.get(2), scanIn.get(3), scanIn.get(4), scanIn.get(5),
                scanIn.get(6));
        Ssd.Output chunked = Ssd.chunked(chunkedIn.get(0), chunkedIn.get(1), chunkedIn.get(2), chunkedIn.get(3), chunkedIn.get(4),
                chunkedIn.get(5), chunkedIn.get(6), chunk);

        double[][] expected = SsdReference.recurrence(k);
        assertArrayEquals(new int[] {2, len, heads, 3}, scan.y().shape());
        assertArrayEquals(new int[] {2, heads, 3, 4}, scan.finalState().shape());
        SsdReference.assertClose(expected[0], scan.y().toFloatArray(), "y");
        SsdReference.assertClose(expected[1], scan.finalState().toFloatArray(), "final state");
        assertFalse(scan.finalState().requiresGrad(), "the scan's final state carries no gradient");

        scan.y().mul(gradY).sum().backward();
        chunked.y().mul(gradY).sum().backward();
        String[] names = {"x", "dt", "A", "B", "C", "D", "initial state"};
        for (int i = 0; i < names.length; i++) {
            if (scanIn.get(i) == null) continue;
            assertNotNull(scanIn.get(i).grad(), names[i]);
            SsdReference.assertClose(doubles(chunkedIn.get(i).grad()), scanIn.get(i).grad().toFloatArray(), "d" + names[i]);
        }
    }

    @Test
    void oneStepOfTheDecodingRecurrenceContinuesTheScansFinalState() {
        SsdReference.Case k = SsdReference.Case.random(6, 2, 5, 4, 3, 2, 4, true);
        Ssd.Output first = SsdScan.scan(k.x().narrow(1, 0, 4), k.dt().narrow(1, 0, 4), k.a(), k.b().narrow(1, 0, 4),
                k.c().narrow(1, 0, 4), k.d(), k.h0());
        Ssd.Output last = Ssd.step(first.finalState(), k.x().select(1, 4), k.dt().select(1, 4), k.a(), k.b().select(1, 4),
                k.c().select(1, 4), k.d());
        double[][] expected = SsdReference.recurrence(k);
        List<Tensor> ys = new ArrayList<>(List.of(first.y(), last.y().unsqueeze(1)));
        SsdReference.assertClose(expected[0], Tensor.cat(ys, 1).toFloatArray(), "y, four positions scanned then one stepped");
        SsdReference.assertClose(expected[1], last.finalState().toFloatArray(), "final state");
    }

    @Test
    void gradientsOfEveryInputMatchFiniteDifferences() {
        Generator g = new Generator(7);
        GradCheck.check("ssd scan", in -> SsdScan.scan(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), in.get(6)).y(),
                SsdReference.gradCheckInputs(g));
    }

    @Test
    void badShapesAreRefusedNamingTheOpAndEveryShape() {
        SsdReference.Case k = SsdReference.Case.random(8, 1, 4, 4, 2, 2, 3, false);
        SsdReference.assertRefusesThreeGroupsOfFourHeads(k, b -> SsdScan.scan(k.x(), k.dt(), k.a(), b, k.c(), k.d(), null));
        var e2 = assertThrows(IllegalArgumentException.class, () -> SsdScan.scan(k.x(), k.dt(), k.a(), k.b(), k.c(), k.d(),
                Tensor.zeros(1, 4, 2, 2)));
        assertTrue(e2.getMessage().contains("initial state [1, 4, 2, 2]"), e2.getMessage());
    }

    /** Fresh leaves requiring a gradient, one per input of the case (null stays null). */
    private static List<Tensor> leaves(SsdReference.Case k) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor t : new Tensor[] {k.x(), k.dt(), k.a(), k.b(), k.c(), k.d(), k.h0()}) {
            out.add(t == null ? null : t.detach().contiguous().requiresGrad(true));
        }
        return out;
    }

    private static double[] doubles(Tensor t) {
        float[] f = t.toFloatArray();
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) d[i] = f[i];
        return d;
    }
}
