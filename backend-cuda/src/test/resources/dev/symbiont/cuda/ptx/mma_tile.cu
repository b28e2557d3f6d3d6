// One warp's tensor-core tile products through mma.sync, compiled by nvcc to the PTX the
// interpreter's tests run (see MmaKernelsTest):  nvcc -ptx -arch=compute_80 -o mma_tile.ptx mma_tile.cu
// Every matrix is row-major in global memory; C (16x8 float32) = A (16xK) * B (Kx8) + C.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

// Two 16-bit values in one register, the lower-indexed element in the low half (the ISA's packing).
template <typename T>
__device__ uint32_t pack(T lo, T hi) {
    return (uint32_t)(*(const unsigned short*)&lo) | ((uint32_t)(*(const unsigned short*)&hi) << 16);
}

__device__ void mma16816_bf16(float* d, const uint32_t* a, const uint32_t* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ void mma16816_f16(float* d, const uint32_t* a, const uint32_t* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ void mma1688_bf16(float* d, const uint32_t* a, uint32_t b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b));
}

// The accumulator fragment: c_i at row g (+8 for i >= 2), column 2t + (i & 1).
__device__ void load_c(float* d, const float* C, int g, int t) {
    for (int i = 0; i < 4; i++) d[i] = C[(g + (i >= 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)];
}

__device__ void store_c(float* C, const float* d, int g, int t) {
    for (int i = 0; i < 4; i++) C[(g + (i >= 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = d[i];
}

// m16n8k16 with the fragments gathered from global memory by the ISA's formulas:
// A register r holds row g (+8 for odd r), columns 2t, 2t+1 (+8 for r >= 2); B register r holds
// rows 2t, 2t+1 (+8 for r = 1) of column g.
template <typename T>
__device__ void mma_direct(const T* A, const T* B, float* C, bool f16) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    uint32_t a[4], b[2];
    for (int r = 0; r < 4; r++) {
        int row = g + (r & 1) * 8, col = 2 * t + (r >> 1) * 8;
        a[r] = pack(A[row * 16 + col], A[row * 16 + col + 1]);
    }
    for (int r = 0; r < 2; r++) {
        int k = 2 * t + r * 8;
        b[r] = pack(B[k * 8 + g], B[(k + 1) * 8 + g]);
    }
    float d[4];
    load_c(d, C, g, t);
    if (f16) mma16816_f16(d, a, b); else mma16816_bf16(d, a, b);
    store_c(C, d, g, t);
}

extern "C" __global__ void mma_direct_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C) { mma_direct(A, B, C, false); }
extern "C" __global__ void mma_direct_f16(const __half* A, const __half* B, float* C) { mma_direct(A, B, C, true); }

// m16n8k8: A 16x8 (register r: row g + 8r, columns 2t, 2t+1), B 8x8 (rows 2t, 2t+1 of column g).
extern "C" __global__ void mma_k8_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    uint32_t a[2];
    for (int r = 0; r < 2; r++) a[r] = pack(A[(g + 8 * r) * 8 + 2 * t], A[(g + 8 * r) * 8 + 2 * t + 1]);
    uint32_t b = pack(B[2 * t * 8 + g], B[(2 * t + 1) * 8 + g]);
    float d[4];
    load_c(d, C, g, t);
    mma1688_bf16(d, a, b);
    store_c(C, d, g, t);
}

// The same product with float32 inputs rounded in pairs (cvt.rn.bf16x2.f32 / .f16x2) into shared
// memory, A's fragments loaded by ldmatrix.x4 and B's (row-major K x N) by ldmatrix.x2.trans.
template <typename T2>
__device__ void mma_ldmatrix(const float* A, const float* B, float* C, bool f16) {
    __shared__ __align__(16) uint32_t As[16 * 8], Bs[16 * 4];
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    for (int i = lane; i < 16 * 8; i += 32) {
        if (f16) { __half2 h = __floats2half2_rn(A[2 * i], A[2 * i + 1]); As[i] = *(uint32_t*)&h; }
        else { __nv_bfloat162 h = __floats2bfloat162_rn(A[2 * i], A[2 * i + 1]); As[i] = *(uint32_t*)&h; }
    }
    for (int i = lane; i < 16 * 4; i += 32) {
        if (f16) { __half2 h = __floats2half2_rn(B[2 * i], B[2 * i + 1]); Bs[i] = *(uint32_t*)&h; }
        else { __nv_bfloat162 h = __floats2bfloat162_rn(B[2 * i], B[2 * i + 1]); Bs[i] = *(uint32_t*)&h; }
    }
    __syncwarp();
    // x4: lanes 0-7 give the rows of matrix 0 (rows 0-7, columns 0-7), 8-15 matrix 1 (rows 8-15),
    // 16-23 matrix 2 (rows 0-7, columns 8-15), 24-31 matrix 3 (rows 8-15, columns 8-15).
    uint32_t a[4], b[2];
    int arow = (lane & 7) + ((lane >> 3) & 1) * 8, acol = (lane >> 4) * 8;
    uint32_t aaddr = (uint32_t)__cvta_generic_to_shared(&As[arow * 8 + acol / 2]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(aaddr));
    // x2.trans: lanes 0-7 give rows k = 0-7 of B, lanes 8-15 rows k = 8-15 (the upper lanes' addresses are unused).
    uint32_t baddr = (uint32_t)__cvta_generic_to_shared(&Bs[(lane & 15) * 4]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(baddr));
    float d[4];
    load_c(d, C, g, t);
    if (f16) mma16816_f16(d, a, b); else mma16816_bf16(d, a, b);
    store_c(C, d, g, t);
}

extern "C" __global__ void mma_ldmatrix_bf16(const float* A, const float* B, float* C) { mma_ldmatrix<__nv_bfloat162>(A, B, C, false); }
extern "C" __global__ void mma_ldmatrix_f16(const float* A, const float* B, float* C) { mma_ldmatrix<__half2>(A, B, C, true); }

// ldmatrix.x1 alone: lanes 0-7 give the rows of one 8x8 matrix; lane l receives row l/4, columns 2(l%4), 2(l%4)+1.
extern "C" __global__ void ldmatrix_x1(const uint32_t* M, uint32_t* out, int trans) {
    __shared__ __align__(16) uint32_t Ms[8 * 4];
    int lane = threadIdx.x;
    Ms[lane] = M[lane];
    __syncwarp();
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(&Ms[(lane & 7) * 4]), v;
    if (trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(v) : "r"(addr));
    else asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(v) : "r"(addr));
    out[lane] = v;
}
