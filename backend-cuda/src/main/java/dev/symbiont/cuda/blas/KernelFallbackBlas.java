package dev.symbiont.cuda.blas;

import java.util.function.Supplier;

/**
 * cuBLAS for what it can do, the backend's own GEMM kernel for the rest (operands of two element
 * types, {@code k = 0}; see {@link CublasGemmArgs#unsupported}). The kernel is made on first need.
 */
final class KernelFallbackBlas implements Blas {
    private final Blas cublas;
    private final Supplier<Blas> kernelFactory;
    private Blas kernel;

    KernelFallbackBlas(Blas cublas, Supplier<Blas> kernelFactory) {
        this.cublas = cublas;
        this.kernelFactory = kernelFactory;
    }

    @Override
    public String describe() {
        return cublas.describe() + " (the GEMM kernel for mixed operand types)";
    }

    @Override
    public void gemm(GemmCall call) {
        if (CublasGemmArgs.unsupported(call) == null) cublas.gemm(call);
        else kernel().gemm(call);
    }

    private synchronized Blas kernel() {
        if (kernel == null) kernel = kernelFactory.get();
        return kernel;
    }

    @Override
    public synchronized void close() {
        try {
            cublas.close();
        } finally {
            if (kernel != null) kernel.close();
        }
    }
}
