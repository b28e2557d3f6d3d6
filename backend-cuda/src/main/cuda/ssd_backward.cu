// Mamba-2's chunked SSD in float32, backward (the forward and its notation: ssd.cu). From the
// forward it reads cum and the states entering each chunk; C.B and gy.x per chunk are recomputed
// by ssd.cu's ssd_bmm, and sum_l exp(cum_l) gy_l C_l^T per chunk by its ssd_chunk_state. Then:
//   ssd_state_passing_backward  a block per (batch, head) walks the chunks from the last:
//                               dOut_c = dL/dH_c = fromC_{c+1} + exp(cum_end_{c+1})*dOut_{c+1}
//                               (the final state's gradient for the last), d(cum_end_c) from
//                               exp(cum_end_c)*H_{c-1}, and dh0 = fromC_0 + exp(cum_end_0)*dOut_0
//   ssd_dx                      a warp per position: dx, the direct part of ddt, and x.gy for dD
//   ssd_dbc                     a warp per position: dB and dC per head, and the two dot products the
//                               gradient of cum needs from them
//                               (both: SSD_WARPS warps a block; the exp weights of the chunk's other
//                               positions are computed once per warp into shared memory, not per lane)
//   ssd_dcum                    a block per (batch, chunk, head): dcum_l, its reverse cumsum r_l,
//                               ddt += A*r_l and the chunk's part of dA, sum_l dt_l*r_l
//   ssd_group_sum, ssd_head_sum dB and dC over each group's heads, dA and dD over batch and chunks
// Every sum runs in a fixed order (warp and block trees, sequential loops): no atomics, the same
// bits every run.
#include "common.cuh"
#include "ssd.cuh"

#define SSD_BLOCK 256

extern "C" __global__ void ssd_state_passing_backward_f32(SsdDims d, const float* fromC, const float* cum, const float* entering,
                                                          const float* gFinal, float* dOut, float* dTotal, float* dh0) {
    __shared__ float scratch[SSD_BLOCK];
    int b = blockIdx.x / d.heads, h = blockIdx.x % d.heads;
    long long pn = (long long)d.p * d.n;
    for (int k = d.chunks - 1; k >= 0; --k) {
        long long at = ssd_chunk_head(d, b, k, h), next = at + d.heads;
        float decayNext = k + 1 < d.chunks ? expf(cum[next * d.q + d.q - 1]) : 0.0f, part = 0.0f;
        for (long long e = threadIdx.x; e < pn; e += blockDim.x) {
            float g = k + 1 < d.chunks ? fromC[next * pn + e] + decayNext * dOut[next * pn + e]
                    : gFinal == nullptr ? 0.0f : gFinal[((long long)b * d.heads + h) * pn + e];
            dOut[at * pn + e] = g;
            part += g * entering[at * pn + e];
        }
        float total = ssd_block_sum(part, scratch);
        if (threadIdx.x == 0) dTotal[at] = expf(cum[at * d.q + d.q - 1]) * total;
    }
    if (dh0 == nullptr) return;
    long long first = ssd_chunk_head(d, b, 0, h);
    float decay = expf(cum[first * d.q + d.q - 1]);
    for (long long e = threadIdx.x; e < pn; e += blockDim.x) {
        dh0[((long long)b * d.heads + h) * pn + e] = fromC[first * pn + e] + decay * dOut[first * pn + e];
    }
}

// A warp's position: (b, t, h) as the row index of a (batch, L, heads) array, and its chunk.
struct SsdPosition {
    long long row;
    int b, t, h, k, s, g, last;
};

__device__ __forceinline__ SsdPosition ssd_position(const SsdDims& d, long long row) {
    SsdPosition q;
    q.row = row;
    q.h = (int)(row % d.heads);
    q.t = (int)((row / d.heads) % d.len);
    q.b = (int)(row / ((long long)d.heads * d.len));
    q.k = q.t / d.q;
    q.s = q.t % d.q;
    q.g = ssd_group(d, q.h);
    q.last = min(d.q, d.len - q.k * d.q);
    return q;
}

// dx_s = dt_s*v_s + D*gy_s with v_s = sum_{l>=s} exp(cum_l - cum_s)*CB[l, s]*gy_l + exp(cum_end - cum_s)*dOut B_s;
// ddt_s (its direct part) = x_s . v_s; dDPart_s = x_s . gy_s.
extern "C" __global__ void ssd_dx_f32(SsdDims d, const float* x, const float* dt, const float* B, const float* D, const float* gy,
                                      const float* cum, const float* CB, const float* dOut, float* dx, float* ddt, float* dDPart) {
    __shared__ float weights[SSD_WARPS][SSD_MAX_CHUNK];
    long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= (long long)d.batch * d.len * d.heads) return;
    SsdPosition q = ssd_position(d, row);
    const float* cumk = cum + ssd_chunk_head(d, q.b, q.k, q.h) * d.q;
    const float* cb = CB + (((long long)q.b * d.chunks + q.k) * d.groups + q.g) * d.q * d.q;
    const float* hout = dOut + ssd_chunk_head(d, q.b, q.k, q.h) * d.p * d.n;
    const float* bRow = B + ssd_row(d, q.b, q.t, q.g, d.groups, d.n);
    float cs = cumk[q.s], toEnd = expf(cumk[d.q - 1] - cs), dts = dt[row], ddtPart = 0.0f, dPart = 0.0f;
    // The weights of the positions after s, shared by the warp's lanes (each p reads them all).
    float* weight = weights[threadIdx.x / 32];
    for (int l = q.s + lane; l < q.last; l += 32) weight[l] = expf(cumk[l] - cs) * cb[(long long)l * d.q + q.s];
    __syncwarp();
    for (int p = lane; p < d.p; p += 32) {
        float v = 0.0f, fromState = 0.0f;
        for (int l = q.s; l < q.last; ++l) v += weight[l] * gy[ssd_row(d, q.b, q.k * d.q + l, q.h, d.heads, d.p) + p];
        for (int n = 0; n < d.n; ++n) fromState += hout[(long long)p * d.n + n] * bRow[n];
        v += toEnd * fromState;
        long long i = row * d.p + p;
        dx[i] = dts * v + (D == nullptr ? 0.0f : D[q.h] * gy[i]);
        ddtPart += x[i] * v;
        dPart += x[i] * gy[i];
    }
    ddtPart = ssd_warp_sum(ddtPart);
    dPart = ssd_warp_sum(dPart);
    if (lane == 0) {
        ddt[row] = ddtPart;
        if (dDPart != nullptr) dDPart[row] = dPart;
    }
}

// Per head, at position i of its chunk:
//   dC_i = sum_{j<=i} exp(cum_i - cum_j)*dt_j*gx[i, j]*B_j + exp(cum_i)*gy_i H_{c-1}          (off_i: the second term)
//   dB_i = dt_i*sum_{l>=i} exp(cum_l - cum_i)*gx[l, i]*C_l + exp(cum_end - cum_i)*dt_i*x_i dOut   (state_i: the second term)
// offDot = C_i . off_i and stateDot = B_i . state_i, what dcum takes from the two terms.
extern "C" __global__ void ssd_dbc_f32(SsdDims d, const float* x, const float* dt, const float* B, const float* C, const float* gy,
                                       const float* cum, const float* gx, const float* entering, const float* dOut,
                                       float* dBh, float* dCh, float* offDot, float* stateDot) {
    __shared__ float weights[SSD_WARPS][2][SSD_MAX_CHUNK];
    long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= (long long)d.batch * d.len * d.heads) return;
    SsdPosition q = ssd_position(d, row);
    long long at = ssd_chunk_head(d, q.b, q.k, q.h);
    const float* cumk = cum + at * d.q;
    const float* gxk = gx + at * d.q * d.q;
    const float* hin = entering + at * d.p * d.n;
    const float* hout = dOut + at * d.p * d.n;
    const float* dtk = dt + ((long long)q.b * d.len + q.k * d.q) * d.heads + q.h;
    long long bRow = ssd_row(d, q.b, q.t, q.g, d.groups, d.n);
    float ci = cumk[q.s], dts = dt[row], offSum = 0.0f, stateSum = 0.0f;
    float fromStart = expf(ci), toEnd = expf(cumk[d.q - 1] - ci) * dts;
    // The weights of the positions up to i (for dC) and from i (for dB), shared by the warp's lanes.
    float* before = weights[threadIdx.x / 32][0];
    float* after = weights[threadIdx.x / 32][1];
    for (int j = lane; j < q.last; j += 32) {
        before[j] = j <= q.s ? expf(ci - cumk[j]) * dtk[(long long)j * d.heads] * gxk[(long long)q.s * d.q + j] : 0.0f;
        after[j] = j >= q.s ? expf(cumk[j] - ci) * gxk[(long long)j * d.q + q.s] : 0.0f;
    }
    __syncwarp();
    for (int n = lane; n < d.n; n += 32) {
        float dc = 0.0f, db = 0.0f, off = 0.0f, state = 0.0f;
        for (int j = 0; j <= q.s; ++j) dc += before[j] * B[ssd_row(d, q.b, q.k * d.q + j, q.g, d.groups, d.n) + n];
        for (int l = q.s; l < q.last; ++l) db += after[l] * C[ssd_row(d, q.b, q.k * d.q + l, q.g, d.groups, d.n) + n];
        for (int p = 0; p < d.p; ++p) {
            off += gy[row * d.p + p] * hin[(long long)p * d.n + n];
            state += x[row * d.p + p] * hout[(long long)p * d.n + n];
        }
        off *= fromStart;
        state *= toEnd;
        dCh[row * d.n + n] = dc + off;
        dBh[row * d.n + n] = dts * db + state;
        offSum += C[bRow + n] * off;
        stateSum += B[bRow + n] * state;
    }
    offSum = ssd_warp_sum(offSum);
    stateSum = ssd_warp_sum(stateSum);
    if (lane == 0) {
        offDot[row] = offSum;
        stateDot[row] = stateSum;
    }
}

// dcum_l = sum_{s<=l} M[l, s] - sum_{m>=l} M[m, l] + offDot_l - stateDot_l, M[l, s] = exp(cum_l - cum_s)*CB[l, s]*dt_s*gx[l, s],
// and at the chunk's end also sum_s stateDot_s + dTotal. r_l = sum_{m>=l} dcum_m; ddt_l += A*r_l, dAPart = sum_l dt_l*r_l.
extern "C" __global__ void ssd_dcum_f32(SsdDims d, const float* dt, const float* A, const float* cum, const float* CB, const float* gx,
                                        const float* offDot, const float* stateDot, const float* dTotal, float* ddt, float* dAPart) {
    __shared__ float dcum[SSD_MAX_CHUNK];
    long long at = blockIdx.x;
    int h = (int)(at % d.heads), k = (int)((at / d.heads) % d.chunks), b = (int)(at / ((long long)d.heads * d.chunks));
    int g = ssd_group(d, h), last = min(d.q, d.len - k * d.q);
    const float* cumk = cum + at * d.q;
    const float* cb = CB + (((long long)b * d.chunks + k) * d.groups + g) * d.q * d.q;
    const float* gxk = gx + at * d.q * d.q;
    long long first = ((long long)b * d.len + k * d.q) * d.heads + h;   // position 0 of the chunk in (batch, L, heads)
    for (int l = threadIdx.x; l < d.q; l += blockDim.x) {
        float v = 0.0f;
        if (l < last) {
            float cl = cumk[l], dtl = dt[first + (long long)l * d.heads];
            for (int s = 0; s <= l; ++s) {
                v += expf(cl - cumk[s]) * cb[(long long)l * d.q + s] * dt[first + (long long)s * d.heads] * gxk[(long long)l * d.q + s];
            }
            for (int m = l; m < last; ++m) v -= expf(cumk[m] - cl) * cb[(long long)m * d.q + l] * dtl * gxk[(long long)m * d.q + l];
            v += offDot[first + (long long)l * d.heads] - stateDot[first + (long long)l * d.heads];
        }
        dcum[l] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float atEnd = dTotal[at], r = 0.0f, da = 0.0f;
        for (int l = 0; l < last; ++l) atEnd += stateDot[first + (long long)l * d.heads];
        for (int l = d.q - 1; l >= 0; --l) {
            r += dcum[l] + (l == d.q - 1 ? atEnd : 0.0f);
            dcum[l] = r;
            if (l < last) da += dt[first + (long long)l * d.heads] * r;
        }
        dAPart[at] = da;
    }
    __syncthreads();
    for (int l = threadIdx.x; l < last; l += blockDim.x) ddt[first + (long long)l * d.heads] += A[h] * dcum[l];
}

// out (batch, L, groups, N): perHead (batch, L, heads, N) summed over each group's heads in order.
extern "C" __global__ void ssd_group_sum_f32(SsdDims d, const float* perHead, float* out) {
    int per = d.heads / d.groups;
    GRID_STRIDE(i, (long long)d.batch * d.len * d.groups * d.n) {
        long long n = i % d.n, r = i / d.n, bt = r / d.groups;
        long long g = r % d.groups;
        float s = 0.0f;
        for (int j = 0; j < per; ++j) s += perHead[(bt * d.heads + g * per + j) * d.n + n];
        out[i] = s;
    }
}

// out[h] = sum over r of parts[r, h], parts (rows, heads): a block per head.
extern "C" __global__ void ssd_head_sum_f32(const float* parts, long long rows, int heads, float* out) {
    __shared__ float scratch[SSD_BLOCK];
    float v = 0.0f;
    for (long long r = threadIdx.x; r < rows; r += blockDim.x) v += parts[r * heads + blockIdx.x];
    float total = ssd_block_sum(v, scratch);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
