// What attention.cu's float32 kernels and attention_mma.cu's tensor-core forward share: the
// operand and problem structs the host passes by value (dev.symbiont.cuda.CudaAttentionKernels)
// and the score of one query against one key.
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
