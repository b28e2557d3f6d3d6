// The linear family's GEMM epilogue over float32 y (rows, cols), the GEMM's output, contiguous:
// the bias added in place and, for linear_gelu, GELU (erf form) applied with its derivative kept
// for the backward, in one pass over the output instead of one pass per step.
#include "common.cuh"

// z = y + bias[col] (bias optional); with gelu: y = z·Φ(z) and, when derivative is given,
// derivative = Φ(z) + z·φ(z), both from the one erfc and exponential; without: y = z.
extern "C" __global__ void linear_epilogue_f32(float* __restrict__ y, float* __restrict__ derivative,
                                               const float* __restrict__ bias, long long n, int cols, int gelu) {
    GRID_STRIDE(i, n) {
        float z = bias == nullptr ? y[i] : y[i] + bias[i % cols];
        if (gelu) {
            // Φ through erfc, which keeps its precision where Φ is tiny.
            float cdf = 0.5f * erfcf(-z * 0.70710678118654752f);
            if (derivative != nullptr) derivative[i] = cdf + z * (expf(-0.5f * z * z) * 0.39894228040143268f);
            z *= cdf;
        }
        y[i] = z;
    }
}
