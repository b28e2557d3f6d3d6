// The norm family's channel norms over float32 x (N, C, L), contiguous from its pointer, with the
// formulas of dev.symbiont.core.fused.norm.ReferenceNorm: batch norm (statistics per channel),
// group norm (per image and group of consecutive channels) and layer norm over C (per image and
// position), forward and backward. Statistics are two-pass (mean, then the centred squares) and
// accumulate in float32. Which statistic an element (n, c, l) belongs to is one affine map
// (StatMap), so the affine, input-gradient and parameter-gradient kernels serve all three norms.
#include "common.cuh"
#include "rows.cuh"

// x's dims and the statistic of element (n, c, l): s = n·perN + c / channelsPer + l·perL.
// Batch norm: (0, 1, 0); group norm: (groups, C / groups, 0); layer norm over C: (L, C, 1).
struct StatMap {
    int n, c, l;
    int perN, channelsPer, perL;
};

__device__ __forceinline__ long long stat_of(const StatMap& m, long long n, int c, long long l) {
    return n * m.perN + c / m.channelsPer + l * m.perL;
}

// The elements of statistic s for the block kernels: `runs` runs of `runLen` consecutive values,
// the first at s·base, each next one `stride` further. Batch norm: base L, stride C·L, N runs of
// L; group norm: base (C / groups)·L, one run of that length.
__device__ __forceinline__ long long run_offset(long long s, long long base, long long stride, int runLen, long long k) {
    return s * base + (k / runLen) * stride + k % runLen;
}

// Mean, biased variance (when var is given) and rstd = 1/√(var + eps) of each statistic's values,
// one block per statistic (blockDim.x a multiple of 32).
extern "C" __global__ void channel_moments_f32(float* __restrict__ mean, float* __restrict__ var, float* __restrict__ rstd,
                                               const float* __restrict__ x, long long base, long long stride,
                                               int runs, int runLen, float eps) {
    const long long s = blockIdx.x, count = (long long)runs * runLen;
    float acc = 0.0f;
    for (long long k = threadIdx.x; k < count; k += blockDim.x) acc += x[run_offset(s, base, stride, runLen, k)];
    const float mu = block_sum(acc) / count;
    float sq = 0.0f;
    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
        float d = x[run_offset(s, base, stride, runLen, k)] - mu;
        sq += d * d;
    }
    const float v = block_sum(sq) / count;
    if (threadIdx.x == 0) {
        mean[s] = mu;
        if (var != nullptr) var[s] = v;
        rstd[s] = 1.0f / sqrtf(v + eps);
    }
}

// Layer norm over C's statistics, one thread per (n, l) column of C values L apart: mean and rstd (N, L).
extern "C" __global__ void column_moments_f32(float* __restrict__ mean, float* __restrict__ rstd, const float* __restrict__ x,
                                              StatMap m, float eps) {
    GRID_STRIDE(col, (long long)m.n * m.l) {
        const float* xc = x + (col / m.l) * m.c * m.l + col % m.l;
        float acc = 0.0f;
        for (int c = 0; c < m.c; ++c) acc += xc[(long long)c * m.l];
        const float mu = acc / m.c;
        float sq = 0.0f;
        for (int c = 0; c < m.c; ++c) {
            float d = xc[(long long)c * m.l] - mu;
            sq += d * d;
        }
        mean[col] = mu;
        rstd[col] = 1.0f / sqrtf(sq / m.c + eps);
    }
}

// y = (x − mean[s])·rstd[s]·weight[c] + bias[c], weight and bias optional.
extern "C" __global__ void channel_affine_f32(float* __restrict__ y, const float* __restrict__ x, const float* __restrict__ mean,
                                              const float* __restrict__ rstd, const float* __restrict__ weight,
                                              const float* __restrict__ bias, StatMap m) {
    GRID_STRIDE(e, (long long)m.n * m.c * m.l) {
        long long l = e % m.l, r = e / m.l;
        int c = (int)(r % m.c);
        long long s = stat_of(m, r / m.c, c, l);
        float v = (x[e] - mean[s]) * rstd[s];
        if (weight != nullptr) v *= weight[c];
        if (bias != nullptr) v += bias[c];
        y[e] = v;
    }
}

// Per statistic, one block each: sumG = Σ ĝ and sumGX = Σ ĝ·x̂ over its values (laid out as for
// channel_moments_f32), with ĝ = gradY·weight[c] and x̂ = (x − mean[s])·rstd[s].
extern "C" __global__ void channel_grad_sums_f32(float* __restrict__ sumG, float* __restrict__ sumGX,
                                                 const float* __restrict__ gy, const float* __restrict__ x,
                                                 const float* __restrict__ weight, const float* __restrict__ mean,
                                                 const float* __restrict__ rstd, long long base, long long stride,
                                                 int runs, int runLen, StatMap m) {
    const long long s = blockIdx.x, count = (long long)runs * runLen;
    const float mu = mean[s], r = rstd[s];
    float g = 0.0f, gx = 0.0f;
    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
        long long at = run_offset(s, base, stride, runLen, k);
        float gh = weight == nullptr ? gy[at] : gy[at] * weight[(at / m.l) % m.c];
        g += gh;
        gx += gh * ((x[at] - mu) * r);
    }
    g = block_sum(g);
    gx = block_sum(gx);
    if (threadIdx.x == 0) {
        sumG[s] = g;
        sumGX[s] = gx;
    }
}

// Layer norm over C's sums, one thread per (n, l) column: as channel_grad_sums_f32 over the column's C values.
extern "C" __global__ void column_grad_sums_f32(float* __restrict__ sumG, float* __restrict__ sumGX,
                                                const float* __restrict__ gy, const float* __restrict__ x,
                                                const float* __restrict__ weight, const float* __restrict__ mean,
                                                const float* __restrict__ rstd, StatMap m) {
    GRID_STRIDE(col, (long long)m.n * m.l) {
        const long long first = (col / m.l) * m.c * m.l + col % m.l;
        const float mu = mean[col], r = rstd[col];
        float g = 0.0f, gx = 0.0f;
        for (int c = 0; c < m.c; ++c) {
            long long at = first + (long long)c * m.l;
            float gh = weight == nullptr ? gy[at] : gy[at] * weight[c];
            g += gh;
            gx += gh * ((x[at] - mu) * r);
        }
        sumG[col] = g;
        sumGX[col] = gx;
    }
}

// The input gradient: with the statistics' own values (sums given, `count` values each)
// gx = (ĝ − sumG[s]/count − x̂·sumGX[s]/count)·rstd[s]; with fixed statistics (sums null) gx = ĝ·rstd[s].
extern "C" __global__ void channel_input_grad_f32(float* __restrict__ gx, const float* __restrict__ gy,
                                                  const float* __restrict__ x, const float* __restrict__ weight,
                                                  const float* __restrict__ mean, const float* __restrict__ rstd,
                                                  const float* __restrict__ sumG, const float* __restrict__ sumGX,
                                                  float count, StatMap m) {
    GRID_STRIDE(e, (long long)m.n * m.c * m.l) {
        long long l = e % m.l, r = e / m.l;
        int c = (int)(r % m.c);
        long long s = stat_of(m, r / m.c, c, l);
        float gh = weight == nullptr ? gy[e] : gy[e] * weight[c];
        if (sumG != nullptr) {
            float xh = (x[e] - mean[s]) * rstd[s];
            gh = gh - sumG[s] / count - xh * (sumGX[s] / count);
        }
        gx[e] = gh * rstd[s];
    }
}

// Weight and bias gradients, one block per channel: gw[c] = Σ_{n,l} gradY·x̂ (when gw is given),
// gb[c] = Σ_{n,l} gradY (when gb is given).
extern "C" __global__ void channel_param_grads_f32(float* __restrict__ gw, float* __restrict__ gb,
                                                   const float* __restrict__ gy, const float* __restrict__ x,
                                                   const float* __restrict__ mean, const float* __restrict__ rstd, StatMap m) {
    const int c = blockIdx.x;
    const long long count = (long long)m.n * m.l;
    float w = 0.0f, b = 0.0f;
    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
        long long n = k / m.l, l = k % m.l, at = (n * m.c + c) * m.l + l;
        long long s = stat_of(m, n, c, l);
        w += gy[at] * ((x[at] - mean[s]) * rstd[s]);
        b += gy[at];
    }
    w = block_sum(w);
    b = block_sum(b);
    if (threadIdx.x == 0) {
        if (gw != nullptr) gw[c] = w;
        if (gb != nullptr) gb[c] = b;
    }
}
