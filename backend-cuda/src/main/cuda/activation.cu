// The activation family's gradients over float32 in one pass each: out = g·f'(x) for GELU (erf
// and tanh forms) and SiLU, the derivatives of dev.symbiont.core.fused.activation.ReferenceActivation
// computed in float32. x, g and out are contiguous runs of n elements from their pointers.
#include "common.cuh"

enum Activation { GELU_ERF = 0, GELU_TANH = 1, SILU = 2 };

__device__ __forceinline__ float activation_grad(int op, float x) {
    switch (op) {
        case GELU_ERF: {
            // Φ(x) + x·φ(x); Φ through erfc, which keeps its precision where Φ is tiny.
            float cdf = 0.5f * erfcf(-x * 0.70710678118654752f);
            float pdf = expf(-0.5f * x * x) * 0.39894228040143268f;
            return cdf + x * pdf;
        }
        case GELU_TANH: {
            // u = √(2/π)(x + 0.044715x³): 0.5(1 + tanh u) + 0.5x(1 − tanh²u)·u'.
            const float k = 0.79788456080286536f, cubic = 0.044715f;
            float x2 = x * x;
            float t = tanhf(k * (x + cubic * x2 * x));
            float du = k * (1.0f + 3.0f * cubic * x2);
            return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
        }
        default: {
            // s·(1 + x(1 − s)), s = sigmoid(x).
            float s = 1.0f / (1.0f + expf(-x));
            return s * (1.0f + x * (1.0f - s));
        }
    }
}

// out[i] = g[i]·f'(x[i]) for the activation `op` (enum Activation, fixed in CudaActivationKernels).
extern "C" __global__ void activation_backward_f32(float* __restrict__ out, const float* __restrict__ x,
                                                   const float* __restrict__ g, long long n, int op) {
    GRID_STRIDE(i, n) out[i] = g[i] * activation_grad(op, x[i]);
}
