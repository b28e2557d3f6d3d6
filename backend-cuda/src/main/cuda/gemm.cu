// The backend's own GEMM with cuBLAS's column-major semantics (dev.symbiont.cuda.blas.GemmCall):
// for each batch b, C_b (m×n, ldc) = op(A_b) (m×k) · op(B_b) (k×n), alpha 1, beta 0. Operands
// are float32, bfloat16 or float16 (A's type names the kernel, B's is an argument, so mixed
// operands run too), widened to float; products accumulate in float32. It runs on the
// interpreter and where no cuBLAS loads: 16×16 tiles staged through shared memory, one thread
// per element of C.
#include "halfs.cuh"

#define TILE 16

enum Element { F32, BF16, F16 };

// Tiles of op(A) and op(B), TILE × (TILE + 1) floats each (the pad avoids bank conflicts).
extern __shared__ float gemm_tiles[];

template <int TYPE> __device__ __forceinline__ float element(const void* p, long long i) {
    if (TYPE == F32) return ((const float*)p)[i];
    if (TYPE == BF16) return bf16_to_float(((const unsigned short*)p)[i]);
    return f16_to_float(((const unsigned short*)p)[i]);
}

__device__ __forceinline__ float element_of(int type, const void* p, long long i) {
    return type == F32 ? element<F32>(p, i) : type == BF16 ? element<BF16>(p, i) : element<F16>(p, i);
}

template <int TYPE_A>
__device__ void gemm(int transA, int transB, int m, int n, int k, const void* a, int lda, long long strideA,
                     const void* b, int bType, int ldb, long long strideB, float* c, int ldc, long long strideC,
                     int batch) {
    float* as = gemm_tiles;                   // as[p * (TILE + 1) + i]: op(A)(row0 + i, p0 + p)
    float* bs = gemm_tiles + TILE * (TILE + 1);  // bs[j * (TILE + 1) + p]: op(B)(p0 + p, col0 + j)
    int tx = threadIdx.x, ty = threadIdx.y;
    long long i = (long long)blockIdx.x * TILE + tx, j = (long long)blockIdx.y * TILE + ty;
    for (long long z = blockIdx.z; z < batch; z += gridDim.z) {
        const char* az = (const char*)a + z * strideA * (TYPE_A == F32 ? 4 : 2);
        const char* bz = (const char*)b + z * strideB * (bType == F32 ? 4 : 2);
        float acc = 0.0f;
        for (int p0 = 0; p0 < k; p0 += TILE) {
            long long pa = p0 + ty, pb = p0 + tx, jb = (long long)blockIdx.y * TILE + ty;
            as[ty * (TILE + 1) + tx] = i < m && pa < k
                ? element<TYPE_A>(az, transA ? pa + i * lda : i + pa * lda) : 0.0f;
            bs[ty * (TILE + 1) + tx] = pb < k && jb < n
                ? element_of(bType, bz, transB ? jb + pb * ldb : pb + jb * ldb) : 0.0f;
            __syncthreads();
            for (int q = 0; q < TILE; ++q) acc = fmaf(as[q * (TILE + 1) + tx], bs[ty * (TILE + 1) + q], acc);
            __syncthreads();
        }
        if (i < m && j < n) c[z * strideC + i + j * (long long)ldc] = acc;
    }
}

#define GEMM(NAME, TYPE_A)                                                                                    \
    extern "C" __global__ void NAME(int transA, int transB, int m, int n, int k, const void* a, int lda,      \
                                    long long strideA, const void* b, int bType, int ldb, long long strideB, \
                                    float* c, int ldc, long long strideC, int batch) {                       \
        gemm<TYPE_A>(transA, transB, m, n, k, a, lda, strideA, b, bType, ldb, strideB, c, ldc, strideC, batch); \
    }

GEMM(gemm_f32, F32)
GEMM(gemm_bf16, BF16)
GEMM(gemm_f16, F16)
