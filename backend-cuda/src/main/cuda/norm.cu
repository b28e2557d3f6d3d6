// The norm family over float32 rows: softmax and log_softmax along the last dim, layer norm and
// RMS norm (optionally fused with the residual add before them), forward and backward, with the
// formulas of dev.symbiont.core.fused.norm.ReferenceNorm. One block per row (blockIdx.x), its
// threads striding over the row's `cols` elements and meeting in block reductions (rows.cuh);
// sums accumulate in float32. Every operand is contiguous (rows, cols) from its pointer, and the
// parameters (cols) and statistics (rows) contiguous too; optional operands are null pointers.
// The weight and bias gradients, sums over rows, are a second kernel with one thread per column.
#include "common.cuh"
#include "rows.cuh"

// y = softmax(x) or, with isLog, log_softmax(x), each row shifted by its max so nothing overflows.
extern "C" __global__ void softmax_f32(float* __restrict__ y, const float* __restrict__ x, int cols, int isLog) {
    const long long base = (long long)blockIdx.x * cols;
    const float* xr = x + base;
    float* yr = y + base;
    float m = __int_as_float(0xff800000);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = java_max(m, xr[c]);
    m = block_max(m);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = block_sum(s);
    const float logSum = logf(s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float shifted = xr[c] - m;
        yr[c] = isLog ? shifted - logSum : expf(shifted) / s;
    }
}

// From the output y and its gradient g: softmax's y·(g − Σ g·y), or log_softmax's g − exp(y)·Σ g.
extern "C" __global__ void softmax_backward_f32(float* __restrict__ gx, const float* __restrict__ y,
                                                const float* __restrict__ g, int cols, int isLog) {
    const long long base = (long long)blockIdx.x * cols;
    const float* yr = y + base;
    const float* gr = g + base;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += isLog ? gr[c] : gr[c] * yr[c];
    s = block_sum(s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        gx[base + c] = isLog ? gr[c] - expf(yr[c]) * s : yr[c] * (gr[c] - s);
    }
}

// s = x (+ residual, written to sum when given), then layer norm of s (mean given) or RMS norm
// (mean null): y = (s − mean)·rstd·weight + bias, rstd = 1/√(mean of the squares, centred or
// not, + eps). Writes the row's statistics to mean[row] and rstd[row].
extern "C" __global__ void row_norm_f32(float* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd,
                                        float* __restrict__ sum, const float* __restrict__ x,
                                        const float* __restrict__ residual, const float* __restrict__ weight,
                                        const float* __restrict__ bias, int cols, float eps) {
    const long long base = (long long)blockIdx.x * cols;
    const float* xr = x + base;
    // With a residual the sum is written in the first pass and each thread re-reads its own elements.
    const float* sr = residual == nullptr ? xr : sum + base;
    float mu = 0.0f;
    if (mean != nullptr || residual != nullptr) {
        float acc = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            float v = xr[c];
            if (residual != nullptr) {
                v += residual[base + c];
                sum[base + c] = v;
            }
            acc += v;
        }
        if (mean != nullptr) mu = block_sum(acc) / cols;
    }
    float sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = sr[c] - mu;
        sq += d * d;
    }
    const float r = 1.0f / sqrtf(block_sum(sq) / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = (sr[c] - mu) * r;
        if (weight != nullptr) v *= weight[c];
        if (bias != nullptr) v += bias[c];
        y[base + c] = v;
    }
    if (threadIdx.x == 0) {
        if (mean != nullptr) mean[blockIdx.x] = mu;
        rstd[blockIdx.x] = r;
    }
}

// The input gradient of layer norm (mean given) or RMS norm (mean null) at x, plus gradSum when
// given: with x̂ = (x − mean)·rstd and ĝ = gy·weight, gx = (ĝ − mean(ĝ) − x̂·mean(ĝ·x̂))·rstd,
// RMS norm dropping the mean(ĝ) term.
extern "C" __global__ void row_norm_backward_f32(float* __restrict__ gx, const float* __restrict__ gy,
                                                 const float* __restrict__ gradSum, const float* __restrict__ x,
                                                 const float* __restrict__ weight, const float* __restrict__ mean,
                                                 const float* __restrict__ rstd, int cols) {
    const long long base = (long long)blockIdx.x * cols;
    const float mu = mean == nullptr ? 0.0f : mean[blockIdx.x], r = rstd[blockIdx.x];
    float sumG = 0.0f, sumGx = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float g = weight == nullptr ? gy[base + c] : gy[base + c] * weight[c];
        sumG += g;
        sumGx += g * ((x[base + c] - mu) * r);
    }
    const float meanG = mean == nullptr ? 0.0f : block_sum(sumG) / cols;
    const float meanGx = block_sum(sumGx) / cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float g = weight == nullptr ? gy[base + c] : gy[base + c] * weight[c];
        float v = (g - meanG - (x[base + c] - mu) * r * meanGx) * r;
        gx[base + c] = gradSum == nullptr ? v : gradSum[base + c] + v;
    }
}

// The parameter gradients over all rows, one thread per column: gw = Σ gy·x̂ (when gw is given),
// gb = Σ gy (when gb is given), x̂ as in row_norm_backward_f32.
extern "C" __global__ void norm_param_grads_f32(float* __restrict__ gw, float* __restrict__ gb,
                                                const float* __restrict__ gy, const float* __restrict__ x,
                                                const float* __restrict__ mean, const float* __restrict__ rstd,
                                                int rows, int cols) {
    GRID_STRIDE(c, cols) {
        float w = 0.0f, b = 0.0f;
        for (int row = 0; row < rows; ++row) {
            long long at = (long long)row * cols + c;
            float g = gy[at];
            float mu = mean == nullptr ? 0.0f : mean[row];
            w += g * ((x[at] - mu) * rstd[row]);
            b += g;
        }
        if (gw != nullptr) gw[c] = w;
        if (gb != nullptr) gb[c] = b;
    }
}
