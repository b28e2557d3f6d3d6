package dev.symbiont.cuda.blas;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlasRoutesTest {
    /** A Blas that records the calls it runs. */
    private static final class Recording implements Blas {
        final String name;
        final List<GemmCall> calls = new ArrayList<>();
        boolean closed;

        Recording(String name) { this.name = name; }

        @Override public String describe() { return name; }

        @Override public void gemm(GemmCall call) { calls.add(call); }

        @Override public void close() { closed = true; }
    }

    private static GemmCall call(GemmCall.ElementType a, GemmCall.ElementType b, int k) {
        return new GemmCall(false, false, 2, 2, k, 0x1000, a, 2, 0, 0x2000, b, Math.max(k, 1), 0, 0x3000, 2, 0, 1,
                GemmCall.MathMode.DEFAULT);
    }

    @Test
    void theFirstRouteThatOpensIsChosenAndTheFailuresBeforeItAreRecorded() {
        Recording ffm = new Recording("cuBLAS 13.0.2 via java.lang.foreign (/x/libcublas.so.13)");
        var routes = BlasRoutes.choose(List.of(
                new BlasRoutes.Candidate("JCublas (libcublas.so.12)", () -> {
                    throw new UnsatisfiedLinkError("libcublas.so.12: cannot open shared object file");
                }),
                new BlasRoutes.Candidate("cuBLAS via java.lang.foreign", () -> ffm)), () -> new Recording("kernel"));
        assertEquals(List.of(
                new BlasRoutes.Attempt("JCublas (libcublas.so.12)", "failed, UnsatisfiedLinkError: libcublas.so.12: cannot open shared object file"),
                new BlasRoutes.Attempt("cuBLAS via java.lang.foreign", "chosen, cuBLAS 13.0.2 via java.lang.foreign (/x/libcublas.so.13)")),
                routes.attempts());
        assertTrue(routes.describe().startsWith("cuBLAS 13.0.2 via java.lang.foreign (/x/libcublas.so.13) (the GEMM kernel for mixed operand types) [tried: JCublas"),
                routes.describe());
    }

    @Test
    void withNoCublasTheKernelRunsAndEveryReasonIsKept() {
        Recording kernel = new Recording("GEMM kernel gemm_f32");
        var routes = BlasRoutes.choose(List.of(
                new BlasRoutes.Candidate("JCublas (libcublas.so.12)", () -> {
                    throw new ExceptionInInitializerError(new UnsatisfiedLinkError("no libcublas.so.12"));
                }),
                new BlasRoutes.Candidate("cuBLAS via java.lang.foreign", () -> {
                    throw new IllegalStateException("no cuBLAS opened (libcublas.so.13: not found)");
                })), () -> kernel);
        assertSame(kernel, routes.blas());
        assertEquals("failed, ExceptionInInitializerError: null: UnsatisfiedLinkError: no libcublas.so.12", routes.attempts().get(0).outcome());
        assertEquals("failed, IllegalStateException: no cuBLAS opened (libcublas.so.13: not found)", routes.attempts().get(1).outcome());
        assertEquals(new BlasRoutes.Attempt("GEMM kernel", "chosen, GEMM kernel gemm_f32"), routes.attempts().get(2));
    }

    @Test
    void behindCublasTheKernelRunsOnlyWhatCublasCannot() {
        Recording cublas = new Recording("cuBLAS");
        Recording kernel = new Recording("kernel");
        int[] kernelsMade = {0};
        var routes = BlasRoutes.choose(List.of(new BlasRoutes.Candidate("cuBLAS", () -> cublas)), () -> {
            kernelsMade[0]++;
            return kernel;
        });
        GemmCall same = call(GemmCall.ElementType.BF16, GemmCall.ElementType.BF16, 3);
        routes.blas().gemm(same);
        assertEquals(0, kernelsMade[0], "the kernel is not made while cuBLAS serves every call");
        GemmCall mixed = call(GemmCall.ElementType.BF16, GemmCall.ElementType.F32, 3);
        GemmCall empty = call(GemmCall.ElementType.F32, GemmCall.ElementType.F32, 0);
        routes.blas().gemm(mixed);
        routes.blas().gemm(empty);
        assertEquals(List.of(same), cublas.calls);
        assertEquals(List.of(mixed, empty), kernel.calls);
        assertEquals(1, kernelsMade[0]);
        routes.blas().close();
        assertTrue(cublas.closed && kernel.closed);
    }
}
