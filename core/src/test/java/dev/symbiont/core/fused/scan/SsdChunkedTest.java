package dev.symbiont.core.fused.scan;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scan family's chunked SSD on the reference: every gradient, through y and through the
 * final state, against finite differences, and bad shapes refused naming the op and the shapes.
 * (Its values against the step-by-step recurrence: the models' {@code SsdTest}.)
 */
class SsdChunkedTest {
    private final Generator gen = new Generator(11);

    @Test
    void gradientsOfEveryInputMatchFiniteDifferencesAcrossChunks() {
        // L 5 in chunks of 2 (the last one padded), 2 heads reading 1 group, D and an initial state.
        GradCheck.check("ssd chunked, everything", in -> ScanConformance.ssdYAndFinalState(Scans.ssdChunked(in.get(0),
                        in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), in.get(6), 2)),
                GradCheck.randn(gen, 1, 1, 5, 2, 3), GradCheck.uniform(gen, 0.1, 0.6, 1, 5, 2), GradCheck.uniform(gen, -1.5, -0.3, 2),
                GradCheck.randn(gen, 1, 1, 5, 1, 2), GradCheck.randn(gen, 1, 1, 5, 1, 2), GradCheck.randn(gen, 1, 2),
                GradCheck.randn(gen, 1, 1, 2, 3, 2));
        GradCheck.check("ssd chunked, bare", in -> Scans.ssdChunked(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4),
                        null, null, 3).y(),
                GradCheck.randn(gen, 1, 2, 4, 2, 2), GradCheck.uniform(gen, 0.1, 0.6, 2, 4, 2), GradCheck.uniform(gen, -1.5, -0.3, 2),
                GradCheck.randn(gen, 1, 2, 4, 2, 3), GradCheck.randn(gen, 1, 2, 4, 2, 3));
        GradCheck.check("ssd chunked, final state only", in -> Scans.ssdChunked(in.get(0), in.get(1), in.get(2), in.get(3),
                        in.get(4), null, null, 2).finalState(),
                GradCheck.randn(gen, 1, 1, 5, 1, 2), GradCheck.uniform(gen, 0.1, 0.6, 1, 5, 1), GradCheck.uniform(gen, -1.5, -0.3, 1),
                GradCheck.randn(gen, 1, 1, 5, 1, 3), GradCheck.randn(gen, 1, 1, 5, 1, 3));
    }

    @Test
    void badShapesAreErrorsNamingTheOpAndTheShapes() {
        Tensor x = Tensor.randn(gen, 1, 4, 4, 2), dt = Tensor.rand(gen, 1, 4, 4), a = Tensor.randn(gen, 4);
        Tensor bc = Tensor.randn(gen, 1, 4, 2, 3);
        throwsMentioning(() -> Scans.ssdChunked(x, dt, a, Tensor.randn(gen, 1, 4, 3, 3), Tensor.randn(gen, 1, 4, 3, 3), null, null, 2),
                "ssd_chunked", "groups dividing heads", "B [1, 4, 3, 3]", "x [1, 4, 4, 2]");
        throwsMentioning(() -> Scans.ssdChunked(x, dt, Tensor.randn(gen, 3), bc, bc, null, null, 2), "ssd_chunked", "A [3]");
        throwsMentioning(() -> Scans.ssdChunked(x, dt, a, bc, bc, null, Tensor.randn(gen, 1, 4, 3, 2), 2),
                "ssd_chunked", "initial state [1, 4, 3, 2]");
        throwsMentioning(() -> Scans.ssdChunked(x, dt, a, bc, bc, null, null, 0), "ssd_chunked", "chunk length", "0");
    }

    private static void throwsMentioning(Executable call, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' should mention " + f);
    }
}
