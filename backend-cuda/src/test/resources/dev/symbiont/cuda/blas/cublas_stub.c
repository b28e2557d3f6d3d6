/* A stand-in for libcublas with the entry points the backend binds: each records its arguments
 * in `stub_record` so a test can check what java.lang.foreign passed. Not a BLAS: it computes nothing. */
#include <stdint.h>

long long stub_record[40];
static int handle_storage;

/* Slots: 0 stream, 1 math mode, 2 destroyed handle, 3 function (1 GemmEx, 2 strided batched, 3 grouped), 4.. its arguments. */
static void arg(int i, long long v) { stub_record[4 + i] = v; }

int cublasCreate_v2(void **handle) { *handle = &handle_storage; return 0; }
int cublasSetStream_v2(void *handle, void *stream) { stub_record[0] = (long long)(intptr_t)stream; return handle == &handle_storage ? 0 : 1; }
int cublasSetMathMode(void *handle, int mode) { stub_record[1] = mode; return 0; }
int cublasGetVersion_v2(void *handle, int *version) { *version = 130002; return 0; }
int cublasDestroy_v2(void *handle) { stub_record[2] = handle == &handle_storage; return 0; }

int cublasGemmEx(void *handle, int transa, int transb, int m, int n, int k, const float *alpha,
                 const void *A, int Atype, int lda, const void *B, int Btype, int ldb, const float *beta,
                 void *C, int Ctype, int ldc, int computeType, int algo) {
    stub_record[3] = 1;
    arg(0, handle == &handle_storage); arg(1, transa); arg(2, transb); arg(3, m); arg(4, n); arg(5, k);
    arg(6, (long long)(*alpha * 1000)); arg(7, (long long)(intptr_t)A); arg(8, Atype); arg(9, lda);
    arg(10, (long long)(intptr_t)B); arg(11, Btype); arg(12, ldb); arg(13, (long long)(*beta * 1000));
    arg(14, (long long)(intptr_t)C); arg(15, Ctype); arg(16, ldc); arg(17, computeType); arg(18, algo);
    return m == 12345 ? 7 : 0; /* CUBLAS_STATUS_INVALID_VALUE on demand */
}

int cublasGemmStridedBatchedEx(void *handle, int transa, int transb, int m, int n, int k, const float *alpha,
                               const void *A, int Atype, int lda, long long strideA,
                               const void *B, int Btype, int ldb, long long strideB, const float *beta,
                               void *C, int Ctype, int ldc, long long strideC, int batchCount,
                               int computeType, int algo) {
    stub_record[3] = 2;
    arg(0, handle == &handle_storage); arg(1, transa); arg(2, transb); arg(3, m); arg(4, n); arg(5, k);
    arg(6, (long long)(*alpha * 1000)); arg(7, (long long)(intptr_t)A); arg(8, Atype); arg(9, lda); arg(10, strideA);
    arg(11, (long long)(intptr_t)B); arg(12, Btype); arg(13, ldb); arg(14, strideB); arg(15, (long long)(*beta * 1000));
    arg(16, (long long)(intptr_t)C); arg(17, Ctype); arg(18, ldc); arg(19, strideC); arg(20, batchCount);
    arg(21, computeType); arg(22, algo);
    return 0;
}

/* Records group_count, computeType, the device pointer arrays, and the second group's values of every host array. */
int cublasGemmGroupedBatchedEx(void *handle, const int *transa, const int *transb, const int *m, const int *n, const int *k,
                               const float *alpha, const void *const *A, int Atype, const int *lda,
                               const void *const *B, int Btype, const int *ldb, const float *beta,
                               void *const *C, int Ctype, const int *ldc, int group_count, const int *group_size,
                               int computeType) {
    stub_record[3] = 3;
    arg(0, handle == &handle_storage); arg(1, group_count); arg(2, computeType);
    arg(3, (long long)(intptr_t)A); arg(4, (long long)(intptr_t)B); arg(5, (long long)(intptr_t)C);
    arg(6, Atype); arg(7, Btype); arg(8, Ctype);
    arg(9, transa[1]); arg(10, transb[1]); arg(11, m[1]); arg(12, n[1]); arg(13, k[1]);
    arg(14, lda[1]); arg(15, ldb[1]); arg(16, ldc[1]); arg(17, (long long)(alpha[1] * 1000)); arg(18, (long long)(beta[1] * 1000));
    arg(19, group_size[0] + group_size[1]); arg(20, m[0]);
    return 0;
}
