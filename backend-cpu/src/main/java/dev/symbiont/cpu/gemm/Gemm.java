package dev.symbiont.cpu.gemm;

/**
 * Single-precision matrix multiply over strided operands: the CPU backend's matmul.
 *
 * <p>Two implementations: {@link VectorGemm} (Vector API, cache-blocked and parallel) and
 * {@link EjmlGemm} (portable, through EJML). {@link #fastest()} picks one once per JVM and
 * logs which and why; the system property {@value GemmSelection#PROPERTY} ({@code vector}
 * or {@code ejml}) forces a path. {@link NaiveGemm} is the reference twin tests compare
 * against.
 *
 * <p>Implementations are thread-safe. C must not overlap A or B.
 */
public interface Gemm {

    /**
     * C[m×n] = A[m×k] · B[k×n] (C overwritten, contiguous row-major with row stride ldc, starting at cOff).
     * A's element (i,p) is a[aOff + i*aRowStride + p*aColStride]; B's element (p,j) is b[bOff + p*bRowStride + j*bColStride].
     * Either operand may be transposed (col stride != 1) or have arbitrary strides; packing absorbs that.
     *
     * @throws IllegalArgumentException on negative sizes or {@code ldc < n}
     * @throws IndexOutOfBoundsException when an operand's extent falls outside its array
     */
    void sgemm(int m, int n, int k,
               float[] a, int aOff, int aRowStride, int aColStride,
               float[] b, int bOff, int bRowStride, int bColStride,
               float[] c, int cOff, int ldc);

    /**
     * C = A·B + bias, with {@code bias[biasOff + j]} added to column j of every row: a Linear
     * layer's forward. {@link VectorGemm} starts its register tiles from the bias, so the add
     * costs no pass over C; the default adds it after {@link #sgemm}.
     *
     * @throws IndexOutOfBoundsException when the bias's n elements fall outside its array
     */
    default void sgemmBias(int m, int n, int k,
                           float[] a, int aOff, int aRowStride, int aColStride,
                           float[] b, int bOff, int bRowStride, int bColStride,
                           float[] bias, int biasOff, float[] c, int cOff, int ldc) {
        GemmChecks.checkVector("bias", bias, biasOff, n);
        sgemm(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        for (int i = 0; i < m; i++) {
            for (int j = 0, d = cOff + i * ldc; j < n; j++) c[d + j] += bias[biasOff + j];
        }
    }

    /**
     * C = A·B, and {@code sums[sumsOff + i]} = Σ_p A(i, p) (overwritten): a Linear layer's weight
     * gradient gᵀ·x together with its bias gradient, the row sums of gᵀ. {@link VectorGemm}
     * sums A's blocks right after packing them, while they are in cache; the default makes a
     * pass over A after {@link #sgemm}.
     *
     * @throws IndexOutOfBoundsException when the m sums fall outside their array
     */
    default void sgemmRowSums(int m, int n, int k,
                              float[] a, int aOff, int aRowStride, int aColStride,
                              float[] b, int bOff, int bRowStride, int bColStride,
                              float[] c, int cOff, int ldc, float[] sums, int sumsOff) {
        GemmChecks.checkVector("sums", sums, sumsOff, m);
        sgemm(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        for (int i = 0; i < m; i++) {
            float s = 0;
            for (int p = 0; p < k; p++) s += a[aOff + i * aRowStride + p * aColStride];
            sums[sumsOff + i] = s;
        }
    }

    /**
     * C += A·B, operands as in {@link #sgemm}: a product summed into an accumulator (the
     * Winograd weight gradient adds 16 products per block into dU). {@link VectorGemm} starts
     * its register tiles from C, so the sum costs no pass over C and no scratch product; the
     * default computes the product into scratch and adds it.
     */
    default void sgemmAccumulate(int m, int n, int k,
                                 float[] a, int aOff, int aRowStride, int aColStride,
                                 float[] b, int bOff, int bRowStride, int bColStride,
                                 float[] c, int cOff, int ldc) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        float[] product = new float[m * n];
        sgemm(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, product, 0, n);
        for (int i = 0; i < m; i++) {
            for (int j = 0, d = cOff + i * ldc; j < n; j++) c[d + j] += product[i * n + j];
        }
    }

    /** Which implementation this is. */
    GemmPath path();

    /**
     * {@code batch} independent products: problem {@code t} reads A at
     * {@code aOff + t*aBatchStride}, B at {@code bOff + t*bBatchStride} and writes C at
     * {@code cOff + t*cBatchStride}; strides within a problem are as in {@link #sgemm}.
     * A batch stride of 0 shares that operand across the batch (e.g. one weight matrix).
     *
     * <p>The default runs the problems one after another; {@link VectorGemm} runs small
     * problems in parallel across the batch instead of across M/N blocks.
     */
    default void sgemmBatched(int batch, int m, int n, int k,
                              float[] a, int aOff, int aBatchStride, int aRowStride, int aColStride,
                              float[] b, int bOff, int bBatchStride, int bRowStride, int bColStride,
                              float[] c, int cOff, int cBatchStride, int ldc) {
        GemmChecks.checkBatch(batch, aBatchStride, bBatchStride, cBatchStride);
        for (int t = 0; t < batch; t++) {
            sgemm(m, n, k,
                  a, aOff + t * aBatchStride, aRowStride, aColStride,
                  b, bOff + t * bBatchStride, bRowStride, bColStride,
                  c, cOff + t * cBatchStride, ldc);
        }
    }

    /**
     * The fastest implementation this JVM can run: {@link VectorGemm} when the
     * {@code jdk.incubator.vector} module is present and its kernels load, else
     * {@link EjmlGemm}. Chosen once; the choice and its reason are logged once.
     *
     * @throws IllegalStateException when {@value GemmSelection#PROPERTY} forces a path that
     *         cannot run here, or names no path
     */
    static Gemm fastest() {
        return GemmSelection.fastest();
    }

    /** The implementation of the given path, bypassing selection. */
    static Gemm of(GemmPath path) {
        return switch (path) {
            case VECTOR -> {
                VectorSupport.Status status = VectorSupport.check();
                if (!status.available()) {
                    throw new IllegalStateException("Vector GEMM unavailable: " + status.reason());
                }
                yield VectorGemm.create();
            }
            case EJML -> new EjmlGemm();
        };
    }
}
