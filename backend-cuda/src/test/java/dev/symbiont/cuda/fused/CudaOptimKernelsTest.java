package dev.symbiont.cuda.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.core.fused.optim.OptimizerSteps;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The optimizer steps ({@code optim.cu}) on the PTX interpreter: several Adam/AdamW and SGD
 * steps give the reference backend's parameter and state bit for bit (the kernels do the
 * reference's float32 operations in its order, never fused), at sizes around a warp and a block;
 * a parameter seen through a view runs the reference, counted as a fallback.
 */
class CudaOptimKernelsTest extends ConformanceBase {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);

    @Override
    protected Backend backend() { return cuda; }

    @Test
    void theBackendHandsOutItsOptimKernels() {
        assertEquals("CudaOptimKernels", String.valueOf(FusedKernels.of(OptimKernels.FAMILY, cuda)));
    }

    @ParameterizedTest(name = "n {0}, decoupled {1}, wd {2}")
    @CsvSource({"1, true, 0.1", "31, false, 0.05", "257, true, 0", "1000, true, 0.01"})
    void adamStepsGiveTheReferenceBits(int n, boolean decoupled, double wd) {
        String op = decoupled ? "adamw_step" : "adam_step";
        long before = Fallbacks.count(op);
        assertMatchesReference("adam n=" + n, in -> adamSteps(in.constant(n), in, decoupled, wd), EXACT);
        assertEquals(before, Fallbacks.count(op), "the adam kernel took every step");
    }

    @ParameterizedTest(name = "n {0}, dampening {1}, nesterov {2}, wd {3}")
    @CsvSource({"1, 0, false, 0", "33, 0.1, false, 0.01", "257, 0, true, 0", "1000, 0.5, true, 0.1"})
    void sgdMomentumStepsGiveTheReferenceBits(int n, double dampening, boolean nesterov, double wd) {
        long before = Fallbacks.count("sgd_step");
        assertMatchesReference("sgd n=" + n, in -> {
            Tensor p = in.constant(n), buf = null;
            for (int t = 1; t <= 3; t++) {
                buf = OptimizerSteps.sgdMomentum(p, in.constant(n), buf, new OptimKernels.SgdHyper(0.05, 0.9, dampening, nesterov, wd));
            }
            return Tensor.cat(List.of(p, buf), 0);
        }, EXACT);
        assertEquals(before, Fallbacks.count("sgd_step"), "the sgd kernel took every step");
    }

    @Test
    void aParameterSeenThroughAViewTakesTheReference() {
        long before = Fallbacks.count("adamw_step");
        assertMatchesReference("adam transposed", in -> adamSteps(in.constant(5, 7).t(), in, true, 0.1), EXACT);
        assertTrue(Fallbacks.count("adamw_step") > before, "a transposed parameter is counted as a fallback");
    }

    /** Three steps on p with fresh gradients of its shape; p, then both moments, flattened and joined. */
    private static Tensor adamSteps(Tensor p, Inputs in, boolean decoupled, double wd) {
        Tensor m = null, v = null;
        for (int t = 1; t <= 3; t++) {
            var s = OptimizerSteps.adam(p, in.constant(p.shape()), m, v, new OptimKernels.AdamHyper(0.01, 0.9, 0.999, 1e-8, wd, decoupled, t));
            m = s.expAvg();
            v = s.expAvgSq();
        }
        return Tensor.cat(List.of(p.reshape(-1), m.reshape(-1), v.reshape(-1)), 0);
    }
}
