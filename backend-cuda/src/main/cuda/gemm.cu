// The backend's own GEMM, with cuBLAS's column-major semantics (cublasGemmStridedBatchedEx,
// alpha 1, beta 0): for each batch b, C_b (m x n) = op(A_b) (m x k) * op(B_b) (k x n), where
// op(A)(i, p) = A[i + p*lda] or, transposed, A[p + i*lda]; likewise B; C[i + j*ldc] is float32.
// bfloat16 and float16 operands are widened to float; products accumulate in float32 (no TF32).
//
// Tiling: a block of 256 threads computes a 64 x 64 tile of C, walking k in steps of 16 through
// shared memory; each thread keeps a 4 x 4 register tile (rows tx + 16r, columns ty + 16c, so a
// warp's shared reads fall in distinct banks). Loads past m, n or k read zero, stores past m or n
// are skipped, so every size is exact. Batches run over gridDim.z, looping when there are more.
#include "halfs.cuh"
#include "register_tile.cuh"

#define TILE 64
#define TILE_K 16
#define THREADS 256

__device__ __forceinline__ float widen(float v) { return v; }

struct Bf16 { unsigned short bits; };
struct F16 { unsigned short bits; };
__device__ __forceinline__ float widen(Bf16 v) { return bf16_to_float(v.bits); }
__device__ __forceinline__ float widen(F16 v) { return f16_to_float(v.bits); }

template <typename TA, typename TB>
__device__ void gemm_tiled(int transA, int transB, int m, int n, int k,
                           const TA* __restrict__ A, int lda, long long strideA,
                           const TB* __restrict__ B, int ldb, long long strideB,
                           float* __restrict__ C, int ldc, long long strideC, int batch) {
    __shared__ float As[TILE_K][TILE];   // As[p][i] = op(A)(row0 + i, k0 + p)
    __shared__ float Bs[TILE_K][TILE];   // Bs[p][j] = op(B)(k0 + p, col0 + j)
    const int t = threadIdx.x;
    const int tx = t % 16, ty = t / 16;
    const long long row0 = (long long)blockIdx.x * TILE;
    const long long col0 = (long long)blockIdx.y * TILE;
    for (int b = blockIdx.z; b < batch; b += gridDim.z) {
        const TA* a = A + (long long)b * strideA;
        const TB* bm = B + (long long)b * strideB;
        float acc[4][4];
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) acc[r][c] = 0.0f;
        for (int k0 = 0; k0 < k; k0 += TILE_K) {
            for (int l = 0; l < TILE * TILE_K / THREADS; ++l) {
                int idx = t + l * THREADS;
                // A's tile: consecutive threads take consecutive rows (coalesced when not transposed).
                int i = idx % TILE, p = idx / TILE;
                long long gi = row0 + i, gp = k0 + p;
                float va = 0.0f;
                if (gi < m && gp < k) va = widen(transA ? a[gp + gi * lda] : a[gi + gp * lda]);
                As[p][i] = va;
                // B's tile: consecutive threads take consecutive k (coalesced when not transposed).
                int q = idx % TILE_K, j = idx / TILE_K;
                long long gq = k0 + q, gj = col0 + j;
                float vb = 0.0f;
                if (gq < k && gj < n) vb = widen(transB ? bm[gj + gq * ldb] : bm[gq + gj * ldb]);
                Bs[q][j] = vb;
            }
            __syncthreads();
            tile_fma<TILE_K, TILE>(As, Bs, acc, tx, ty);
            __syncthreads();
        }
        float* cm = C + (long long)b * strideC;
        for (int r = 0; r < 4; ++r) {
            long long i = row0 + tx + 16 * r;
            if (i >= m) continue;
            for (int c = 0; c < 4; ++c) {
                long long j = col0 + ty + 16 * c;
                if (j < n) cm[i + j * ldc] = acc[r][c];
            }
        }
    }
}

#define GEMM_KERNEL(name, TA, TB)                                                                    \
    extern "C" __global__ void __launch_bounds__(THREADS) name(                                      \
            int transA, int transB, int m, int n, int k,                                             \
            const TA* A, int lda, long long strideA, const TB* B, int ldb, long long strideB,        \
            float* C, int ldc, long long strideC, int batch) {                                       \
        gemm_tiled<TA, TB>(transA, transB, m, n, k, A, lda, strideA, B, ldb, strideB, C, ldc, strideC, batch); \
    }

GEMM_KERNEL(gemm_f32, float, float)
GEMM_KERNEL(gemm_bf16, Bf16, Bf16)
GEMM_KERNEL(gemm_f16, F16, F16)
// Mixed operand types: gemm_<A>_<B>, each operand widened on its own.
GEMM_KERNEL(gemm_f32_bf16, float, Bf16)
GEMM_KERNEL(gemm_bf16_f32, Bf16, float)
GEMM_KERNEL(gemm_f32_f16, float, F16)
GEMM_KERNEL(gemm_f16_f32, F16, float)
GEMM_KERNEL(gemm_bf16_f16, Bf16, F16)
GEMM_KERNEL(gemm_f16_bf16, F16, Bf16)
