// The mixture-of-experts family over float32 (dev.symbiont.core.fused.moe.MoeKernels): the top-k
// router after its logits GEMM, the counting sort of token slots by expert (permute), the grouped
// expert GEMM over groups whose sizes stay on the device, combine, and SwiGLU — forward and
// backward, with ReferenceMoe's formulas. Every operand is contiguous from its pointer unless its
// comment says otherwise; ids, sizes, offsets and permutations are int64.
//
// Vocabulary as MoeKernels': T tokens routed to k experts make T·k slots, slot s = t·k + i; permute
// sorts the slots by expert, stably, keeping at most `capacity` per expert; the R kept slots are
// the sorted rows.
#include "common.cuh"
#include "rows.cuh"

// ---- route ------------------------------------------------------------------------------------

// (value, index) of the better of two router candidates: the larger probability, ties to the
// lower expert (a stable topk); index -1 is "none".
__device__ __forceinline__ void better(float& v, int& i, float ov, int oi) {
    if (oi < 0) return;
    if (i < 0 || ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

// One warp per token: probs = softmax(logits), logsumexp, the k most probable experts (each pick
// is the best of those ranked below the previous pick, so nothing is marked) and their weights,
// renormalised to sum to 1 when asked. logits, probs (T, E); ids, weights (T, k); lse (T).
extern "C" __global__ void moe_route_f32(float* __restrict__ probs, long long* __restrict__ ids, float* __restrict__ weights,
                                         float* __restrict__ lse, const float* __restrict__ logits, int tokens, int experts,
                                         int k, int renormalize) {
    const int lane = threadIdx.x & 31;
    const long long t = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (t >= tokens) return; // the whole warp leaves together
    const float* h = logits + t * experts;
    float* p = probs + t * experts;
    float m = __int_as_float(0xff800000);
    for (int c = lane; c < experts; c += 32) m = java_max(m, h[c]);
    m = warp_max(m);
    float s = 0.0f;
    for (int c = lane; c < experts; c += 32) s += expf(h[c] - m);
    s = warp_sum(s);
    if (lane == 0) lse[t] = logf(s) + m;
    for (int c = lane; c < experts; c += 32) p[c] = expf(h[c] - m) / s;
    float prevV = __int_as_float(0x7f800000);
    int prevI = -1;
    for (int pick = 0; pick < k; ++pick) {
        float v = 0.0f;
        int i = -1;
        for (int c = lane; c < experts; c += 32) {
            float pc = p[c];
            if (pc < prevV || (pc == prevV && c > prevI)) better(v, i, pc, c);
        }
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_xor_sync(FULL_MASK, v, o);
            int oi = __shfl_xor_sync(FULL_MASK, i, o);
            better(v, i, ov, oi);
        }
        if (i < 0) { i = 0; v = p[0]; } // only NaN probabilities are left: any expert is as good
        if (lane == 0) {
            ids[t * k + pick] = i;
            weights[t * k + pick] = v;
        }
        prevV = v;
        prevI = i;
    }
    if (renormalize && lane == 0) {
        float sum = 0.0f;
        for (int pick = 0; pick < k; ++pick) sum += weights[t * k + pick];
        for (int pick = 0; pick < k; ++pick) weights[t * k + pick] /= sum;
    }
}

// One warp per token: the logits' gradient dh (T, E) from the gradients of the four outputs (null:
// that output fed nothing). The weights' gradient goes to the probabilities of the picked experts
// (through the renormalisation w = v / Σv: dv = (dw − Σ dw ⊙ w) / Σv), then softmax's
// p ⊙ (dp − Σ p ⊙ dp), the logsumexp's p ⊙ dlse and the logits' own.
extern "C" __global__ void moe_route_backward_f32(float* __restrict__ dh, const float* __restrict__ dLogits,
                                                  const float* __restrict__ dProbs, const float* __restrict__ dWeights,
                                                  const float* __restrict__ dLse, const float* __restrict__ probs,
                                                  const long long* __restrict__ ids, int tokens, int experts, int k,
                                                  int renormalize) {
    const int lane = threadIdx.x & 31;
    const long long t = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (t >= tokens) return;
    const float* p = probs + t * experts;
    const long long* id = ids + t * k;
    float sum = 1.0f, corr = 0.0f;
    if (dWeights != nullptr && renormalize) {
        sum = 0.0f;
        for (int i = 0; i < k; ++i) sum += p[id[i]];
        for (int i = 0; i < k; ++i) corr += dWeights[t * k + i] * (p[id[i]] / sum);
    }
    float dot = 0.0f;
    for (int c = lane; c < experts; c += 32) {
        float dp = dProbs == nullptr ? 0.0f : dProbs[t * experts + c];
        if (dWeights != nullptr) {
            for (int i = 0; i < k; ++i) {
                if (id[i] == c) dp += renormalize ? (dWeights[t * k + i] - corr) / sum : dWeights[t * k + i];
            }
        }
        dh[t * experts + c] = dp; // kept for the second pass below, by the same lane
        dot += p[c] * dp;
    }
    dot = warp_sum(dot);
    const float dl = dLse == nullptr ? 0.0f : dLse[t];
    for (int c = lane; c < experts; c += 32) {
        float g = p[c] * (dh[t * experts + c] - dot) + p[c] * dl;
        if (dLogits != nullptr) g += dLogits[t * experts + c];
        dh[t * experts + c] = g;
    }
}

// ---- permute: a counting sort of the slots, stable within each expert --------------------------

#define CHUNK 256

// A block of CHUNK threads per chunk of CHUNK slots: each slot's rank among the earlier slots of
// its chunk with the same expert (localRank), and the chunk's count per expert (chunkCounts
// (chunks, E), zeroed before). An id outside [0, E) is skipped here (the host's index check
// raises it).
extern "C" __global__ void __launch_bounds__(CHUNK) moe_permute_count(int* __restrict__ chunkCounts, int* __restrict__ localRank,
                                                                      const long long* __restrict__ ids, long long slots,
                                                                      int experts) {
    __shared__ int chunkIds[CHUNK];
    const long long s = (long long)blockIdx.x * CHUNK + threadIdx.x;
    long long e = s < slots ? ids[s] : -1;
    if (e < 0 || e >= experts) e = -1;
    chunkIds[threadIdx.x] = (int)e;
    __syncthreads();
    if (e < 0) return;
    int rank = 0;
    for (int j = 0; j < (int)threadIdx.x; ++j) rank += chunkIds[j] == (int)e;
    localRank[s] = rank;
    atomicAdd(&chunkCounts[(long long)blockIdx.x * experts + e], 1);
}

// One block: each expert's count over the chunks, kept up to capacity (sizes), the chunks' first
// rank per expert (chunkBase (chunks, E)), the groups' offsets (the exclusive prefix sum of the
// sizes) and, when `kept` is given, their sum R.
extern "C" __global__ void moe_permute_offsets(long long* __restrict__ sizes, long long* __restrict__ offsets,
                                               long long* __restrict__ kept, int* __restrict__ chunkBase,
                                               const int* __restrict__ chunkCounts, int chunks, int experts,
                                               long long capacity) {
    for (int e = threadIdx.x; e < experts; e += blockDim.x) {
        long long run = 0;
        for (int b = 0; b < chunks; ++b) {
            chunkBase[(long long)b * experts + e] = (int)run;
            run += chunkCounts[(long long)b * experts + e];
        }
        sizes[e] = run < capacity ? run : capacity;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        long long at = 0;
        for (int e = 0; e < experts; ++e) {
            offsets[e] = at;
            at += sizes[e];
        }
        if (kept != nullptr) *kept = at;
    }
}

// Each kept slot's row: its expert's offset plus its rank among the expert's slots in slot order.
extern "C" __global__ void moe_permute_scatter(long long* __restrict__ permutation, const long long* __restrict__ ids,
                                               const int* __restrict__ localRank, const int* __restrict__ chunkBase,
                                               const long long* __restrict__ sizes, const long long* __restrict__ offsets,
                                               long long slots, int experts) {
    GRID_STRIDE(s, slots) {
        long long e = ids[s];
        if (e < 0 || e >= experts) continue;
        long long rank = chunkBase[(s / CHUNK) * experts + e] + localRank[s];
        if (rank < sizes[e]) permutation[offsets[e] + rank] = s;
    }
}

// rows (R, d) = x (T, d) at the token of each row's slot; an entry outside [0, T·k) gives zeros.
extern "C" __global__ void moe_gather_rows_f32(float* __restrict__ rows, const float* __restrict__ x,
                                               const long long* __restrict__ permutation, long long count, int d, int k,
                                               long long slots) {
    GRID_STRIDE(i, count * d) {
        long long r = i / d, s = permutation[r];
        rows[i] = s >= 0 && s < slots ? x[(s / k) * d + (i - r * d)] : 0.0f;
    }
}

// ---- combine and the sums back in token order ---------------------------------------------------

// rowOfSlot (T·k, filled with -1 before) = the row of each kept slot. An entry outside [0, T·k)
// records its row in rangeError, a slot given twice in duplicateError (DeviceErrors' slots).
extern "C" __global__ void moe_inverse_permutation(int* __restrict__ rowOfSlot, const long long* __restrict__ permutation,
                                                   long long rows, long long slots, unsigned long long* rangeError,
                                                   unsigned long long* duplicateError) {
    GRID_STRIDE(r, rows) {
        long long s = permutation[r];
        if (s < 0 || s >= slots) {
            atomicMax(rangeError, ~(unsigned long long)r);
        } else if (atomicCAS(&rowOfSlot[s], -1, (int)r) != -1) {
            atomicMax(duplicateError, ~(unsigned long long)r);
        }
    }
}

// One thread, after moe_inverse_permutation: the entry at each recorded bad row into the second slot.
extern "C" __global__ void moe_permutation_error_values(const long long* __restrict__ permutation,
                                                        unsigned long long* rangeError, unsigned long long* duplicateError) {
    if (rangeError[0] != 0) rangeError[1] = (unsigned long long)permutation[~rangeError[0]];
    if (duplicateError[0] != 0) duplicateError[1] = (unsigned long long)permutation[~duplicateError[0]];
}

// out (T, d)[t] = Σ_i w[t, i] · rows[row of slot t·k + i] over the kept slots (weights null: 1),
// summed in choice order, one thread per output element: deterministic, no atomics.
extern "C" __global__ void moe_sum_per_token_f32(float* __restrict__ out, const float* __restrict__ rows,
                                                 const float* __restrict__ weights, const int* __restrict__ rowOfSlot,
                                                 long long tokens, int k, int d) {
    GRID_STRIDE(i, tokens * d) {
        long long t = i / d, j = i - t * d;
        float acc = 0.0f;
        for (int c = 0; c < k; ++c) {
            int r = rowOfSlot[t * k + c];
            if (r >= 0) acc += (weights == nullptr ? 1.0f : weights[t * k + c]) * rows[(long long)r * d + j];
        }
        out[i] = acc;
    }
}

// combine's row gradient dy (R, d) = w[slot] · g[token of slot] for each row's slot.
extern "C" __global__ void moe_combine_backward_rows_f32(float* __restrict__ dy, const float* __restrict__ g,
                                                         const float* __restrict__ weights,
                                                         const long long* __restrict__ permutation, long long rows,
                                                         int k, int d, long long slots) {
    GRID_STRIDE(i, rows * d) {
        long long r = i / d, s = permutation[r];
        dy[i] = s >= 0 && s < slots ? weights[s] * g[(s / k) * d + (i - r * d)] : 0.0f;
    }
}

// One warp per slot: the routing weight's gradient ⟨g[t], y[row of slot]⟩, 0 for a dropped slot.
extern "C" __global__ void moe_combine_backward_weights_f32(float* __restrict__ dw, const float* __restrict__ g,
                                                            const float* __restrict__ y, const int* __restrict__ rowOfSlot,
                                                            long long slots, int k, int d) {
    const int lane = threadIdx.x & 31;
    const long long s = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (s >= slots) return;
    const int r = rowOfSlot[s];
    float acc = 0.0f;
    if (r >= 0) {
        const float* gt = g + (s / k) * d;
        const float* yr = y + (long long)r * d;
        for (int j = lane; j < d; j += 32) acc += gt[j] * yr[j];
    }
    acc = warp_sum(acc);
    if (lane == 0) dw[s] = acc;
}

// ---- SwiGLU -------------------------------------------------------------------------------------

__device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

// h = silu(a) ⊙ b over n elements.
extern "C" __global__ void moe_swiglu_f32(float* __restrict__ h, const float* __restrict__ a, const float* __restrict__ b,
                                          long long n) {
    GRID_STRIDE(i, n) {
        float x = a[i];
        h[i] = x * sigmoidf(x) * b[i];
    }
}

// da = g ⊙ b ⊙ silu′(a), silu′(x) = s·(1 + x(1 − s)); db = g ⊙ silu(a).
extern "C" __global__ void moe_swiglu_backward_f32(float* __restrict__ da, float* __restrict__ db, const float* __restrict__ g,
                                                   const float* __restrict__ a, const float* __restrict__ b, long long n) {
    GRID_STRIDE(i, n) {
        float x = a[i], s = sigmoidf(x);
        da[i] = g[i] * b[i] * (s * (1.0f + x * (1.0f - s)));
        db[i] = g[i] * (x * s);
    }
}

#include "grouped_gemm.cuh"
