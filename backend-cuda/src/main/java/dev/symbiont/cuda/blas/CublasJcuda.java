package dev.symbiont.cuda.blas;

import dev.symbiont.cuda.driver.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * cuBLAS through JCublas ({@code org.jcuda:jcublas} 12.6.0), whose natives link
 * {@code libcublas.so.12} with versioned symbols: the route where a CUDA 12 cuBLAS is installed.
 * Loading {@link JCublas2} throws an {@link UnsatisfiedLinkError} where it is not, and
 * {@link BlasRoutes} moves on to {@link CublasFfm}.
 */
public final class CublasJcuda implements Blas {
    private final cublasHandle handle = new cublasHandle();
    private final Pointer alpha = Pointer.to(new float[] {1f});
    private final Pointer beta = Pointer.to(new float[] {0f});
    private final int version;
    private int mathMode = -1;
    private boolean closed;

    private CublasJcuda(CUstream stream) {
        check("cublasCreate", JCublas2.cublasCreate(handle), "");
        try {
            check("cublasSetStream", JCublas2.cublasSetStream(handle, new cudaStream_t(stream)), "");
            int[] v = {0};
            check("cublasGetVersion", JCublas2.cublasGetVersion(handle, v), "");
            version = v[0];
        } catch (RuntimeException e) {
            JCublas2.cublasDestroy(handle);
            throw e;
        }
    }

    /** A handle on {@code stream}; throws the natives' {@link LinkageError} where {@code libcublas.so.12} does not load. */
    public static CublasJcuda open(CUstream stream) {
        return new CublasJcuda(stream);
    }

    @Override
    public String describe() {
        return "cuBLAS " + version / 10000 + "." + version / 100 % 100 + "." + version % 100 + " via JCublas "
                + jcuda.JCudaVersion.get();
    }

    @Override
    public synchronized void gemm(GemmCall call) {
        CublasGemmArgs g = CublasGemmArgs.checked("CublasJcuda.gemm", call, closed);
        if (g.mathMode() != mathMode) {
            check("cublasSetMathMode", JCublas2.cublasSetMathMode(handle, g.mathMode()), "mode " + g.mathMode());
            mathMode = g.mathMode();
        }
        if (g.batch() == 1) {
            check("cublasGemmEx", JCublas2.cublasGemmEx(handle, g.transA(), g.transB(), g.m(), g.n(), g.k(), alpha,
                    device(g.a()), g.aType(), g.lda(), device(g.b()), g.bType(), g.ldb(), beta, device(g.c()), g.cType(),
                    g.ldc(), g.computeType(), g.algo()), g.shape());
        } else {
            check("cublasGemmStridedBatchedEx", JCublas2.cublasGemmStridedBatchedEx(handle, g.transA(), g.transB(), g.m(),
                    g.n(), g.k(), alpha, device(g.a()), g.aType(), g.lda(), g.strideA(), device(g.b()), g.bType(), g.ldb(),
                    g.strideB(), beta, device(g.c()), g.cType(), g.ldc(), g.strideC(), g.batch(), g.computeType(),
                    g.algo()), g.shape());
        }
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        check("cublasDestroy", JCublas2.cublasDestroy(handle), "");
    }

    private static CUdeviceptr device(long address) {
        return new CUdeviceptr().withByteOffset(address);
    }

    private static void check(String call, int status, String detail) {
        if (status != 0) throw new CudaException(call, CublasGemmArgs.statusName(status), detail);
    }
}
