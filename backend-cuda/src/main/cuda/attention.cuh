// What attention.cu's float32 kernels and attention_mma.cu's tensor-core forward share: the
// operand and problem structs the host passes by value (dev.symbiont.cuda.CudaAttentionKernels)
// the score of one query against one key, and the causal bounds of a tile.
#pragma once

#define NEG_INF __int_as_float(0xff800000)

// A 4-D operand's strides in elements: (batch, head, seq, dim); the base pointer carries the offset.
struct Operand {
    long long batch, head, seq, dim;
};

// What every kernel of a call shares.
struct Problem {
    int heads, kvHeads, sq, sk, d, causal;
    float scale;
};

// The score of query i and key j: dot * scale + mask, or -inf where j is hidden (or out of range).
__device__ __forceinline__ float score(float dot, const Problem& pr, const float* mask, const Operand& ms, int i, int j) {
    if (i >= pr.sq || j >= pr.sk) return NEG_INF;
    if (pr.causal && j > i + (pr.sk - pr.sq)) return NEG_INF;
    float s = dot * pr.scale;
    if (mask != nullptr) s += mask[(long long)i * ms.seq + (long long)j * ms.dim];
    return s;
}

// The first key past what any query row of [m0, m0 + rows) sees (causal: the tiles right of it are skipped).
__device__ __forceinline__ int visible_keys_end(const Problem& pr, int m0, int rows) {
    if (!pr.causal) return pr.sk;
    return max(0, min(pr.sk, min(m0 + rows, pr.sq) + (pr.sk - pr.sq)));
}

// The first query that sees key n0 (causal: the query tiles above it are skipped).
__device__ __forceinline__ int first_visible_query(const Problem& pr, int n0) {
    return pr.causal ? max(0, n0 - (pr.sk - pr.sq)) : 0;
}
