// Device-function calls, local arrays, __constant__ and __device__ variables with initialisers,
// compiled by nvcc to the PTX the interpreter's tests run (see CallsAndSpacesKernelTest):
//   nvcc -ptx -arch=compute_80 -o calls_and_spaces.ptx calls_and_spaces.cu
__constant__ float weights[4] = {0.5f, -1.0f, 2.0f, 4.0f};
__device__ int launches = 7;

// Not inlined, so nvcc emits a .func and a call with .param arguments and a return value.
__device__ __noinline__ float weighted(const float* v, int count, float bias) {
    float s = bias;
    for (int i = 0; i < count; i++) s += v[i] * weights[i & 3];
    return s;
}

extern "C" __global__ void calls_and_spaces(float* out, int* counter, const float* x, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) *counter = atomicAdd(&launches, 1);
    if (i >= n) return;
    float local[8];  // indexed by a runtime value: lives in .local memory
    for (int d = 0; d < 8; d++) local[d] = x[(i + d) % n];
    float reversed = local[(rank - 1 - i % rank + 8) % 8];
    out[i] = weighted(local, rank, reversed);
}
