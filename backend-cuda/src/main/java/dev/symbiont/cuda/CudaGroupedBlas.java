package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels.GroupedGrads;
import dev.symbiont.cuda.blas.GemmCall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The moe family's grouped expert GEMM as cuBLAS's grouped GEMM ({@code cublasGemmGroupedBatchedEx},
 * one group per expert; one GEMM per expert on a route without it), the alternative
 * {@code -Dsymbiont.cuda.moeGemm=blas} selects so that it can be measured against the own kernels
 * of {@link CudaGroupedGemm}. cuBLAS takes each group's sizes on the host, so every call reads the
 * group sizes to the host first: a synchronisation the own kernels avoid. Experts with no rows
 * are left out; their weight gradients are zeros.
 */
final class CudaGroupedBlas {
    /** Which grouped GEMM the moe family runs: its own kernels, or the backend's BLAS route. */
    enum Route { KERNEL, BLAS }

    static final String PROPERTY = "symbiont.cuda.moeGemm";

    private final FusedOperands io;

    CudaGroupedBlas(FusedOperands io) { this.io = io; }

    /** The route {@code -Dsymbiont.cuda.moeGemm=kernel|blas} names (read at every call), {@link Route#KERNEL} when unset. */
    static Route configured() { return PropertyChoice.read(PROPERTY, Route.KERNEL); }

    /** Whether the grouped GEMMs run here rather than on the own kernels. */
    static boolean selected() { return configured() == Route.BLAS; }

    /** x (R, in) · W_e (in, out) over each expert's rows; result (R, out). */
    Tensor forward(Tensor x, List<Tensor> weights, Tensor groupSizes) {
        io.backend().enter();
        long[] sizes = Moe.groupSizesOnHost(x, groupSizes);
        int rows = x.size(0), in = x.size(1), out = weights.get(0).size(1);
        Tensor xs = FusedOperands.dense(x), y = io.empty(rows, out);
        List<Product> products = new ArrayList<>();
        long first = 0;
        for (int e = 0; e < weights.size(); e++) {
            if (sizes[e] > 0) products.add(new Product(xs, first * in, weights.get(e), 0, y, first * out, (int) sizes[e], out, in));
            first += sizes[e];
        }
        run(products);
        return y;
    }

    /** dx (R, in) = g_e · W_eᵀ per group; dW_e (in, out) = x_eᵀ · g_e, in W_e's transposed layout when W_e is a transpose. */
    GroupedGrads backward(Tensor gradOut, Tensor x, List<Tensor> weights, Tensor groupSizes) {
        io.backend().enter();
        long[] sizes = Moe.groupSizesOnHost(x, groupSizes);
        int rows = x.size(0), in = x.size(1), out = weights.get(0).size(1);
        Tensor xs = FusedOperands.dense(x), g = FusedOperands.dense(gradOut), dx = io.empty(rows, in);
        List<Tensor> dw = new ArrayList<>(weights.size());
        List<Product> products = new ArrayList<>();
        long first = 0;
        for (int e = 0; e < weights.size(); e++) {
            int r = (int) sizes[e];
            boolean transposed = CudaGroupedGemm.transposed(weights.get(e));
            if (r == 0) {
                Tensor zeros = Tensor.of(io.backend().full(DType.FLOAT32, (long) in * out, 0), transposed ? new int[] {out, in} : new int[] {in, out});
                dw.add(transposed ? zeros.t() : zeros);
                continue;
            }
            products.add(new Product(g, first * out, weights.get(e).t(), 0, dx, first * in, r, in, out));
            Tensor grad = io.empty(transposed ? new int[] {out, in} : new int[] {in, out});
            if (transposed) products.add(new Product(g.t(), first * out, xs, first * in, grad, 0, out, in, r));   // dW_eᵀ = g_eᵀ · x_e
            else products.add(new Product(xs.t(), first * in, g, first * out, grad, 0, in, out, r));            // dW_e = x_eᵀ · g_e
            dw.add(transposed ? grad.t() : grad);
            first += r;
        }
        run(products);
        return new GroupedGrads(dx, dw);
    }

    /**
     * One row-major product C (m×n) = A (m×k) · B (k×n): A and B as views whose layout gives their
     * strides, each read from an element offset past the view's start; C contiguous from {@code cOffset}.
     */
    private record Product(Tensor a, long aOffset, Tensor b, long bOffset, Tensor c, long cOffset, int m, int n, int k) {}

    /** The products as one grouped call of the backend's BLAS route, their operand addresses uploaded for it. */
    private void run(List<Product> products) {
        if (products.isEmpty()) return;
        CudaBackend be = io.backend();
        List<GemmCall> calls = new ArrayList<>(products.size());
        List<MatrixOperand> operands = new ArrayList<>();
        try {
            for (Product p : products) {
                MatrixOperand a = operand(p.a(), operands), b = operand(p.b(), operands);
                long c = CudaBackend.storage(p.c().storage()).address(p.c().layout().offset() + p.cOffset());
                calls.add(CudaMatmul.call(a, b, p.m(), p.n(), p.k(), p.aOffset(), p.bOffset(), c, 0, 0, 1, GemmCall.MathMode.DEFAULT));
            }
            CudaStorage pointers = pointers(be, calls);
            try {
                be.blas().groupedGemm(calls, pointers.address());
            } finally {
                pointers.release();
            }
        } finally {
            operands.forEach(MatrixOperand::releaseCopy);
        }
    }

    private MatrixOperand operand(Tensor t, List<MatrixOperand> operands) {
        MatrixOperand m = MatrixOperand.of(io.backend(), CudaBackend.storage(t.storage()), t.layout());
        operands.add(m);
        return m;
    }

    /** Every call's A, then B, then C address, on the device (the grouped entry point reads them there). */
    private static CudaStorage pointers(CudaBackend be, List<GemmCall> calls) {
        int n = calls.size();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(ValueLayout.JAVA_LONG, 3L * n);
            for (int i = 0; i < n; i++) {
                host.setAtIndex(ValueLayout.JAVA_LONG, i, calls.get(i).a());
                host.setAtIndex(ValueLayout.JAVA_LONG, n + i, calls.get(i).b());
                host.setAtIndex(ValueLayout.JAVA_LONG, 2L * n + i, calls.get(i).c());
            }
            return CudaBackend.storage(be.upload(DType.INT64, host));
        }
    }
}
