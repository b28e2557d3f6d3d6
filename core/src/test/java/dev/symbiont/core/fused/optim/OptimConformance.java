package dev.symbiont.core.fused.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

/**
 * The optim family: several Adam/AdamW and SGD-with-momentum steps against the reference,
 * parameter and state compared after the last step (within 1e-6 relative; the CPU kernel does
 * the reference's float32 operations in the same order), on sizes with a ragged vector tail
 * and sizes large enough to be split over threads.
 */
public abstract class OptimConformance extends ConformanceBase {
    private static final Tolerance STEP = new Tolerance(1e-6, 1e-7);

    @ParameterizedTest(name = "n {0}, decoupled {1}, wd {2}")
    @CsvSource({"1, true, 0.1", "37, false, 0", "37, false, 0.05", "1000, true, 0.01", "70001, true, 0.1"})
    void adamStepsMatchReference(int n, boolean decoupled, double wd) {
        assertMatchesReference("adam n=" + n, in -> {
            Tensor p = in.constant(n), m = null, v = null;
            for (int t = 1; t <= 4; t++) {
                var s = OptimizerSteps.adam(p, in.constant(n), m, v, new OptimKernels.AdamHyper(0.01, 0.9, 0.999, 1e-8, wd, decoupled, t));
                m = s.expAvg();
                v = s.expAvgSq();
            }
            return Tensor.cat(List.of(p, m, v), 0);
        }, STEP);
    }

    @ParameterizedTest(name = "n {0}, dampening {1}, nesterov {2}, wd {3}")
    @CsvSource({"1, 0, false, 0", "37, 0.1, false, 0.01", "37, 0, true, 0", "70001, 0, true, 0.1"})
    void sgdMomentumStepsMatchReference(int n, double dampening, boolean nesterov, double wd) {
        assertMatchesReference("sgd n=" + n, in -> {
            Tensor p = in.constant(n), buf = null;
            for (int t = 1; t <= 4; t++) {
                buf = OptimizerSteps.sgdMomentum(p, in.constant(n), buf, new OptimKernels.SgdHyper(0.05, 0.9, dampening, nesterov, wd));
            }
            return Tensor.cat(List.of(p, buf), 0);
        }, STEP);
    }
}
