// A shared-memory tiled GEMM in the shape of the backend's (column-major, cuBLAS semantics,
// C = alpha * op(A) * B + beta * C), compiled by nvcc to the PTX the interpreter's tests run
// (see TiledGemmKernelTest):  nvcc -ptx -arch=compute_80 -o tiled_gemm.ptx tiled_gemm.cu
#include <cuda_bf16.h>

#define TILE 16

// A is m×k (lda) or, transposed, k×m; B is k×n (ldb); C is m×n (ldc). Batch z strides by the given element counts.
template <typename T>
__device__ void gemm_tile(bool transA, int m, int n, int k, float alpha, const T* A, int lda, long long strideA,
                          const T* B, int ldb, long long strideB, float beta, float* C, int ldc, long long strideC) {
    __shared__ float As[TILE][TILE + 1];
    __shared__ float Bs[TILE][TILE + 1];
    A += blockIdx.z * strideA;
    B += blockIdx.z * strideB;
    C += blockIdx.z * strideC;
    int row = blockIdx.x * TILE + threadIdx.x, col = blockIdx.y * TILE + threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += TILE) {
        int ka = k0 + threadIdx.y, kb = k0 + threadIdx.x;
        float a = 0.0f, b = 0.0f;
        if (row < m && ka < k) a = (float)(transA ? A[(long long)row * lda + ka] : A[(long long)ka * lda + row]);
        if (col < n && kb < k) b = (float)B[(long long)col * ldb + kb];
        As[threadIdx.y][threadIdx.x] = a;
        Bs[threadIdx.y][threadIdx.x] = b;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; kk++) acc = fmaf(As[kk][threadIdx.x], Bs[threadIdx.y][kk], acc);
        __syncthreads();
    }
    if (row < m && col < n) {
        float* c = &C[(long long)col * ldc + row];
        *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
    }
}

extern "C" __global__ void gemm_f32(int transA, int m, int n, int k, float alpha, const float* A, int lda, long long strideA,
                                    const float* B, int ldb, long long strideB, float beta, float* C, int ldc, long long strideC) {
    gemm_tile<float>(transA != 0, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC);
}

extern "C" __global__ void gemm_bf16(int transA, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                                     long long strideA, const __nv_bfloat16* B, int ldb, long long strideB, float beta, float* C,
                                     int ldc, long long strideC) {
    gemm_tile<__nv_bfloat16>(transA != 0, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC);
}
