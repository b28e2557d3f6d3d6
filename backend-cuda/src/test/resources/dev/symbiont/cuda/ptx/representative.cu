// Representative kernels of the shapes the backend ships, compiled by nvcc to the PTX the
// interpreter's tests run (see NvccKernelsTest). Regenerate with:
//   nvcc -ptx -arch=compute_80 -o representative.ptx representative.cu
// (the Strided struct, strided_offset and GRID_STRIDE are the shipped kernels' own, from common.cuh)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../../../../../../main/cuda/common.cuh"

extern "C" __global__ void transcendental_f32(float* exp_out, float* log_out, float* tanh_out, float* erf_out,
                                              const float* x, long long n) {
    GRID_STRIDE(i, n) {
        float v = x[i];
        exp_out[i] = expf(v);
        log_out[i] = logf(fabsf(v) + 1.0f);
        tanh_out[i] = tanhf(v);
        erf_out[i] = erff(v);
    }
}

// One partial sum per block: a shared-memory tree down to one warp, then warp shuffles.
extern "C" __global__ void block_sum_f32(float* out, const float* x, int n) {
    __shared__ float partial[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s >= 32; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        float v = partial[threadIdx.x];
        for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
}

extern "C" __global__ void scatter_add_f32(float* out, const int* index, const float* src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&out[index[i]], src[i]);
}

// Gathers a strided view into a contiguous buffer: 64-bit index arithmetic over a by-value struct.
extern "C" __global__ void strided_gather_f32(float* out, const float* x, Strided layout, long long n) {
    GRID_STRIDE(i, n) {
        out[i] = x[strided_offset(layout, i)];
    }
}

extern "C" __global__ void round_to_half_f32(unsigned short* bf16_out, unsigned short* f16_out, float* bf16_back,
                                             float* f16_back, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat16 b = __float2bfloat16_rn(x[i]);
        __half h = __float2half_rn(x[i]);
        bf16_out[i] = __bfloat16_as_ushort(b);
        f16_out[i] = __half_as_ushort(h);
        bf16_back[i] = __bfloat162float(b);
        f16_back[i] = __half2float(h);
    }
}

extern "C" __global__ void double_math_f64(double* fma_out, double* ratio_out, double* exp_out, const double* a,
                                           const double* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        fma_out[i] = fma(a[i], b[i], a[i]);
        ratio_out[i] = sqrt(fabs(a[i])) / (b[i] + 1.0);
        exp_out[i] = exp(a[i]);
    }
}
