// The optim family's steps over float32, one pass per parameter: the parameter is updated in place
// and the new state written to fresh buffers, with torch.optim's single-tensor formulas as
// dev.symbiont.core.fused.optim.ReferenceOptim writes them. Each operation is the reference's
// float32 operation in its order, rounded to nearest through the _rn intrinsics (which nvcc never
// contracts into a fused multiply-add), so the results are the reference's bits. All operands are
// contiguous runs of n elements; a null state reads as zeros (a first step).
#include "common.cuh"

enum AdamFlags { WEIGHT_DECAY = 1, DECOUPLED = 2 };
enum SgdFlags { SGD_WEIGHT_DECAY = 1, DAMPENED = 2, NESTEROV = 4 };

// Adam, or AdamW with DECOUPLED: p ← p − m̂/(√v̂ + eps)·stepSize with the moments' lerp forms.
extern "C" __global__ void adam_step_f32(float* __restrict__ p, const float* __restrict__ g,
                                         const float* __restrict__ m, const float* __restrict__ v,
                                         float* __restrict__ mOut, float* __restrict__ vOut, long long n,
                                         float decay, float l2, float oneMinusBeta1, float beta2, float oneMinusBeta2,
                                         float bias2Sqrt, float eps, float stepSize, int flags) {
    GRID_STRIDE(i, n) {
        float pi = p[i], gi = g[i];
        if (flags & WEIGHT_DECAY) {
            if (flags & DECOUPLED) pi = __fmul_rn(pi, decay);
            else gi = __fadd_rn(gi, __fmul_rn(pi, l2));
        }
        float mi = m == nullptr ? 0.0f : m[i], vi = v == nullptr ? 0.0f : v[i];
        mi = __fadd_rn(mi, __fmul_rn(__fsub_rn(gi, mi), oneMinusBeta1));
        vi = __fadd_rn(__fmul_rn(vi, beta2), __fmul_rn(__fmul_rn(gi, oneMinusBeta2), gi));
        float denom = __fadd_rn(__fdiv_rn(__fsqrt_rn(vi), bias2Sqrt), eps);
        p[i] = __fsub_rn(pi, __fmul_rn(__fdiv_rn(mi, denom), stepSize));
        mOut[i] = mi;
        vOut[i] = vi;
    }
}

// SGD with momentum: the buffer starts at the gradient (buf null), then buf·momentum + (1 − dampening)·g;
// the step is the buffer, or g + momentum·buf with NESTEROV.
extern "C" __global__ void sgd_momentum_step_f32(float* __restrict__ p, const float* __restrict__ g,
                                                 const float* __restrict__ buf, float* __restrict__ bufOut, long long n,
                                                 float lr, float momentum, float oneMinusDampening, float l2, int flags) {
    GRID_STRIDE(i, n) {
        float pi = p[i], gi = g[i];
        if (flags & SGD_WEIGHT_DECAY) gi = __fadd_rn(gi, __fmul_rn(pi, l2));
        float b = gi;
        if (buf != nullptr) b = __fadd_rn(__fmul_rn(buf[i], momentum), (flags & DAMPENED) ? __fmul_rn(gi, oneMinusDampening) : gi);
        float step = (flags & NESTEROV) ? __fadd_rn(gi, __fmul_rn(b, momentum)) : b;
        p[i] = __fsub_rn(pi, __fmul_rn(step, lr));
        bufOut[i] = b;
    }
}
