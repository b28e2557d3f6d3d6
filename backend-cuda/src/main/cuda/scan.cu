// The scan family in float32, with the semantics of dev.symbiont.core.fused.scan.ReferenceScan.
//
// Both scans are associative scans over affine maps s -> p*s + q (a Pair): composing step t
// after step t-1 is (p_t*p_{t-1}, p_t*q_{t-1} + q_t), so a chunk of steps collapses to one Pair
// and the state before any step is the composition of the pairs before it applied to the carry.
// Inside a warp that composition is a Hillis-Steele scan over shuffles (five steps for 32 lanes);
// each lane first composes its ITEMS consecutive steps sequentially.
//
// Linear scan h_t = a_t*h_{t-1} + b_t along `dim` of any layout: the sequences are the product
// of the other dims, each read through its operand's strides. The backward is the same scan run
// from the end: with x_t = a_t*gh_t, x_t = a_t*x_{t+1} + a_t*g_t, gh_t = g_t + x_{t+1}, and
// dh0 = x_0. Two variants:
//   block-local (linear_scan_f32): a block of 128 threads per sequence walks it in chunks of
//     512 steps, a block-wide scan per chunk (warp scans, then the four warps' totals through
//     shared memory) with the carry from the chunk before;
//   grid-wide (totals, carries, fixup): for few long sequences, a block per (sequence, chunk)
//     writes its chunk's composed Pair, a block per sequence scans those Pairs into each chunk's
//     incoming state, and a block per (sequence, chunk) rescans its chunk from that state.
//
// Selective scan (Mamba): a warp per (batch, channel), four channels a block, L in chunks of 128
// steps (32 lanes x 4); for each of the N states the chunk's (exp(dt*A_n), dt*u*B_n) pairs are
// warp-scanned from the state carried from the chunk before, and y accumulates h*C_n in the
// lanes' registers. A warp's N carried states live in its row of shared memory (warp-uniform:
// every lane reads a broadcast), so N up to MAX_STATES runs. The forward saves each chunk's
// incoming states (the backward's checkpoints) and, with a gate, y + D*u before it. The backward
// walks the chunks from last to first: per state it rescans the chunk from its checkpoint, then
// runs the adjoint scan from the end with the carry from the chunk after. dB and dC sum over the
// channels of a group with atomicAdd (mamba-ssm does the same); dA, dD and ddeltaBias are written
// per (batch, channel) and summed over the batch by a second kernel, in a fixed order.
#include "common.cuh"
#include "rows.cuh"
#include "pairs.cuh"

#define LINEAR_ITEMS 4
#define LINEAR_CHUNK (SCAN_THREADS * LINEAR_ITEMS)
#define SELECTIVE_ITEMS 4
#define SELECTIVE_CHUNK (32 * SELECTIVE_ITEMS)
#define MAX_STATES 256

// ---- linear scan ---------------------------------------------------------------------------------

// A float32 operand: its storage pointer (null: absent) and its layout in elements.
struct Operand {
    float* p;
    Strided s;
};

// One linear scan call. Every operand has a's rank; h0 and dh0 have stride 0 along dim. out is h
// (forward) or db (backward); da, db and dh0 are null when not wanted, h0 when there is none.
struct LinearScan {
    Operand a, x, h, h0; // x: b (forward) or the gradient of h (backward); h: the forward's output
    Operand out, da, dh0;
    long long len, seqs;
    int dim, backward;
};

// Where a sequence starts in an operand: `seq` decomposed over the dims other than dim.
__device__ __forceinline__ float* sequence(const Operand& o, int dim, long long seq) {
    if (o.p == nullptr) return nullptr;
    long long off = o.s.offset;
    for (int d = o.s.rank - 1; d >= 0; --d) {
        if (d == dim) continue;
        long long q = seq / o.s.shape[d];
        off += (seq - q * o.s.shape[d]) * o.s.stride[d];
        seq = q;
    }
    return o.p + off;
}

// One sequence's pointers and its step along dim in each operand.
struct Sequence {
    float *a, *x, *h, *out, *da;
    long long sa, sx, sh, sout, sda;
    float h0;      // the initial state h_{-1}, or 0
    float initial; // the state before the first scanned step: h0 forward, 0 backward
    float* dh0;

    __device__ Sequence(const LinearScan& s, long long seq) {
        const int d = s.dim;
        a = sequence(s.a, d, seq), x = sequence(s.x, d, seq), h = sequence(s.h, d, seq);
        out = sequence(s.out, d, seq), da = sequence(s.da, d, seq), dh0 = sequence(s.dh0, d, seq);
        sa = s.a.s.stride[d], sx = s.x.s.stride[d], sh = s.h.s.stride[d], sout = s.out.s.stride[d], sda = s.da.s.stride[d];
        float* h0p = sequence(s.h0, d, seq);
        h0 = h0p == nullptr ? 0.0f : *h0p;
        initial = s.backward ? 0.0f : h0;
    }
};

// Step k of the scan: time k forward, len-1-k backward.
__device__ __forceinline__ long long time_of(const LinearScan& s, long long k) { return s.backward ? s.len - 1 - k : k; }

// The Pair of scan step k (identity past the end); g is the gradient of h there (backward).
__device__ __forceinline__ Pair linear_pair(const LinearScan& s, const Sequence& q, long long k, float& g) {
    g = 0.0f;
    if (k >= s.len) return identity_pair();
    long long t = time_of(s, k);
    float a = q.a[t * q.sa], x = q.x[t * q.sx];
    if (!s.backward) return Pair{a, x};
    g = x;
    return Pair{a, a * x};
}

// Composes this thread's steps of chunk `chunk` in order.
__device__ __forceinline__ Pair thread_steps(const LinearScan& s, const Sequence& q, long long chunk, Pair* pairs, float* g) {
    const long long k0 = chunk * LINEAR_CHUNK + (long long)threadIdx.x * LINEAR_ITEMS;
    Pair local = identity_pair();
#pragma unroll
    for (int i = 0; i < LINEAR_ITEMS; ++i) {
        pairs[i] = linear_pair(s, q, k0 + i, g[i]);
        local = after(local, pairs[i]);
    }
    return local;
}

// Scans chunk `chunk` of a sequence from `carry`, the state before it, writing its outputs;
// returns the state after it (on every thread).
__device__ float linear_chunk(const LinearScan& s, const Sequence& q, long long chunk, float carry) {
    Pair pairs[LINEAR_ITEMS];
    float g[LINEAR_ITEMS];
    Pair before, total;
    block_scan(thread_steps(s, q, chunk, pairs, g), before, total);
    float state = fmaf(before.p, carry, before.q);
    const long long k0 = chunk * LINEAR_CHUNK + (long long)threadIdx.x * LINEAR_ITEMS;
#pragma unroll
    for (int i = 0; i < LINEAR_ITEMS; ++i) {
        long long k = k0 + i;
        if (k >= s.len) break;
        long long t = time_of(s, k);
        if (!s.backward) {
            state = fmaf(pairs[i].p, state, pairs[i].q);
            q.out[t * q.sout] = state;
        } else {
            float gh = g[i] + state; // gh_t = g_t + a_{t+1}*gh_{t+1}
            if (q.out != nullptr) q.out[t * q.sout] = gh;
            if (q.da != nullptr) {   // da_t = gh_t*h_{t-1}, h_{-1} the initial state
                float previous = t > 0 ? q.h[(t - 1) * q.sh] : q.h0;
                q.da[t * q.sda] = gh * previous;
            }
            state = pairs[i].p * gh;
        }
    }
    return fmaf(total.p, carry, total.q);
}

// Block-local: a block per sequence walks its chunks in order.
extern "C" __global__ void linear_scan_f32(LinearScan s) {
    Sequence q(s, blockIdx.x);
    const long long chunks = (s.len + LINEAR_CHUNK - 1) / LINEAR_CHUNK;
    float carry = q.initial;
    for (long long c = 0; c < chunks; ++c) carry = linear_chunk(s, q, c, carry);
    if (q.dh0 != nullptr && threadIdx.x == 0) *q.dh0 = carry;
}

// Grid-wide pass 1: a block per (sequence, chunk) composes the chunk's steps into totals[2 * block].
extern "C" __global__ void linear_scan_totals_f32(LinearScan s, float* totals, long long chunks) {
    const long long block = blockIdx.x, seq = block / chunks, chunk = block - seq * chunks;
    Sequence q(s, seq);
    Pair pairs[LINEAR_ITEMS];
    float g[LINEAR_ITEMS];
    Pair before, total;
    block_scan(thread_steps(s, q, chunk, pairs, g), before, total);
    if (threadIdx.x == 0) {
        totals[2 * block] = total.p;
        totals[2 * block + 1] = total.q;
    }
}

// Grid-wide pass 2: a block per sequence scans its chunks' totals from the initial state;
// states[seq * chunks + c] is the state after chunk c.
extern "C" __global__ void linear_scan_carries_f32(LinearScan s, const float* totals, float* states, long long chunks) {
    Sequence q(s, blockIdx.x);
    const float* t = totals + 2 * (long long)blockIdx.x * chunks;
    float* out = states + (long long)blockIdx.x * chunks;
    float carry = q.initial;
    for (long long c0 = 0; c0 < chunks; c0 += LINEAR_CHUNK) {
        const long long k0 = c0 + (long long)threadIdx.x * LINEAR_ITEMS;
        Pair pairs[LINEAR_ITEMS];
        Pair local = identity_pair(), before, total;
#pragma unroll
        for (int i = 0; i < LINEAR_ITEMS; ++i) {
            long long k = k0 + i;
            pairs[i] = k < chunks ? Pair{t[2 * k], t[2 * k + 1]} : identity_pair();
            local = after(local, pairs[i]);
        }
        block_scan(local, before, total);
        float state = fmaf(before.p, carry, before.q);
#pragma unroll
        for (int i = 0; i < LINEAR_ITEMS; ++i) {
            if (k0 + i >= chunks) break;
            state = fmaf(pairs[i].p, state, pairs[i].q);
            out[k0 + i] = state;
        }
        carry = fmaf(total.p, carry, total.q);
    }
}

// Grid-wide pass 3: a block per (sequence, chunk) rescans its chunk from the state before it.
extern "C" __global__ void linear_scan_fixup_f32(LinearScan s, const float* states, long long chunks) {
    const long long block = blockIdx.x, seq = block / chunks, chunk = block - seq * chunks;
    Sequence q(s, seq);
    float carry = chunk == 0 ? q.initial : states[block - 1];
    float last = linear_chunk(s, q, chunk, carry);
    if (chunk == chunks - 1 && q.dh0 != nullptr && threadIdx.x == 0) *q.dh0 = last;
}

// ---- selective scan ------------------------------------------------------------------------------

// An operand of rank <= 4: the pointer to its first element (null: absent) and its strides in
// elements, 0 for dims it does not have.
struct Op4 {
    float* p;
    long long s0, s1, s2, s3;
};

// One selective scan call: u, delta, z (batch, channels, len); A (channels, n); B, C (batch,
// groups, n, len); D, bias (channels); h0 (batch, channels, n).
struct Selective {
    long long batch, channels, len, n, groups, chunks, softplus; // 64-bit and first: no partial vector loads of the parameter
    Op4 u, delta, A, B, C, D, z, bias, h0;
};

__device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

// PyTorch's softplus (threshold 20).
__device__ __forceinline__ float softplusf(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

// What a warp needs of its (batch, channel): base pointers (strides from the call), its group's
// rows of B and C, and its scalars.
struct Channel {
    const float *u, *delta, *z, *B, *C;
    float skip, bias;
    long long item; // batch * channels + channel

    __device__ Channel(const Selective& s, int b, int c) {
        const int g = c / (s.channels / s.groups);
        u = s.u.p + b * s.u.s0 + c * s.u.s1;
        delta = s.delta.p + b * s.delta.s0 + c * s.delta.s1;
        z = s.z.p == nullptr ? nullptr : s.z.p + b * s.z.s0 + c * s.z.s1;
        B = s.B.p + b * s.B.s0 + g * s.B.s1;
        C = s.C.p + b * s.C.s0 + g * s.C.s1;
        skip = s.D.p == nullptr ? 0.0f : s.D.p[c * s.D.s0];
        bias = s.bias.p == nullptr ? 0.0f : s.bias.p[c * s.bias.s0];
        item = (long long)b * s.channels + c;
    }
};

// delta + bias at step l (softplus's input).
__device__ __forceinline__ float pre_dt(const Selective& s, const Channel& ch, int l) {
    return ch.delta[l * s.delta.s2] + ch.bias;
}

// dt at step l: softplus?(delta + bias); 0 past the end (where the step is the identity).
__device__ __forceinline__ float dt_at(const Selective& s, const Channel& ch, int l) {
    if (l >= s.len) return 0.0f;
    float pre = pre_dt(s, ch, l);
    return s.softplus ? softplusf(pre) : pre;
}

// Forward: out (batch, channels, len); checkpoints (batch, channels, chunks, n): the states
// entering each chunk; preGate (batch, channels, len): y + D*u, written when there is a gate;
// last (batch, channels, n) or null.
extern "C" __global__ void selective_scan_f32(Selective s, float* out, float* checkpoints, float* preGate, float* last) {
    __shared__ float carried[SCAN_WARPS][MAX_STATES];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int c = blockIdx.x * SCAN_WARPS + warp, b = blockIdx.y;
    if (c >= s.channels) return; // whole warps leave; nothing below syncs the block
    float* h = carried[warp];
    const Channel ch(s, b, c);
    for (int n = lane; n < s.n; n += 32) {
        h[n] = s.h0.p == nullptr ? 0.0f : s.h0.p[b * s.h0.s0 + c * s.h0.s1 + n * s.h0.s2];
    }
    __syncwarp();
    for (int chunk = 0; chunk < s.chunks; ++chunk) {
        const int l0 = chunk * SELECTIVE_CHUNK + lane * SELECTIVE_ITEMS;
        float dt[SELECTIVE_ITEMS], dtu[SELECTIVE_ITEMS], y[SELECTIVE_ITEMS];
#pragma unroll
        for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
            int l = l0 + i;
            dt[i] = dt_at(s, ch, l);
            dtu[i] = l < s.len ? dt[i] * ch.u[l * s.u.s2] : 0.0f;
            y[i] = 0.0f;
        }
        float* saved = checkpoints + (ch.item * s.chunks + chunk) * s.n;
        for (int n = 0; n < s.n; ++n) {
            const float an = s.A.p[c * s.A.s0 + n * s.A.s1], start = h[n];
            const float* Bn = ch.B + n * s.B.s2;
            Pair steps[SELECTIVE_ITEMS];
            Pair local = identity_pair();
#pragma unroll
            for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
                int l = l0 + i;
                steps[i] = l < s.len ? Pair{expf(dt[i] * an), dtu[i] * Bn[l * s.B.s3]} : identity_pair();
                local = after(local, steps[i]);
            }
            Pair before = exclusive_up(warp_scan_up(local, lane), lane);
            float state = fmaf(before.p, start, before.q);
            const float* Cn = ch.C + n * s.C.s2;
#pragma unroll
            for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
                state = fmaf(steps[i].p, state, steps[i].q);
                if (l0 + i < s.len) y[i] = fmaf(state, Cn[(l0 + i) * s.C.s3], y[i]);
            }
            float end = __shfl_sync(FULL_MASK, state, 31);
            __syncwarp(); // every lane has read h[n]
            if (lane == 0) {
                saved[n] = start;
                h[n] = end;
            }
            __syncwarp();
        }
#pragma unroll
        for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
            int l = l0 + i;
            if (l >= s.len) break;
            float o = fmaf(ch.skip, ch.u[l * s.u.s2], y[i]);
            long long at = ch.item * s.len + l;
            if (ch.z != nullptr) {
                preGate[at] = o;
                float zv = ch.z[l * s.z.s2];
                o *= zv * sigmoidf(zv);
            }
            out[at] = o;
        }
    }
    if (last != nullptr) {
        for (int n = lane; n < s.n; n += 32) last[ch.item * s.n + n] = h[n];
    }
}

// Backward from gradOut (batch, channels, len, read through its strides) and the forward's
// checkpoints and preGate. Writes du, ddelta, dz (when there is a gate) and dh0 (when there is an
// initial state) in full; adds into dB and dC (batch, groups, n, len), zero on entry; writes per
// (batch, channel) the sums over its steps of dA (n), dD and ddeltaBias into perItem (n + 2 each).
extern "C" __global__ void selective_scan_backward_f32(Selective s, Op4 gradOut, const float* checkpoints,
                                                       const float* preGate, float* du, float* ddelta, float* dz,
                                                       float* dB, float* dC, float* dh0, float* perItem) {
    __shared__ float carried[SCAN_WARPS][MAX_STATES];  // x = ΔA·gh at the first step of the chunk after
    __shared__ float dAsum[SCAN_WARPS][MAX_STATES];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int c = blockIdx.x * SCAN_WARPS + warp, b = blockIdx.y;
    if (c >= s.channels) return;
    float* x = carried[warp];
    float* dA = dAsum[warp];
    const Channel ch(s, b, c);
    const int g = c / (s.channels / s.groups);
    float* dBg = dB + ((long long)b * s.groups + g) * s.n * s.len;
    float* dCg = dC + ((long long)b * s.groups + g) * s.n * s.len;
    const float* go = gradOut.p + b * gradOut.s0 + c * gradOut.s1;
    for (int n = lane; n < s.n; n += 32) {
        x[n] = 0.0f;
        dA[n] = 0.0f;
    }
    __syncwarp();
    float dSkip = 0.0f, dBias = 0.0f;
    for (int chunk = s.chunks - 1; chunk >= 0; --chunk) {
        const int l0 = chunk * SELECTIVE_CHUNK + lane * SELECTIVE_ITEMS;
        float dt[SELECTIVE_ITEMS], uv[SELECTIVE_ITEMS], gy[SELECTIVE_ITEMS], ddt[SELECTIVE_ITEMS], dui[SELECTIVE_ITEMS];
#pragma unroll
        for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
            int l = l0 + i;
            bool valid = l < s.len;
            dt[i] = dt_at(s, ch, l);
            uv[i] = valid ? ch.u[l * s.u.s2] : 0.0f;
            float gv = valid ? go[l * gradOut.s2] : 0.0f;
            if (valid && ch.z != nullptr) { // out = (y + D·u)·silu(z)
                long long at = ch.item * s.len + l;
                float zv = ch.z[l * s.z.s2], sig = sigmoidf(zv);
                dz[at] = gv * preGate[at] * sig * (1.0f + zv * (1.0f - sig));
                gv *= zv * sig;
            }
            gy[i] = gv;
            dSkip = fmaf(gv, uv[i], dSkip);
            dui[i] = gv * ch.skip;
            ddt[i] = 0.0f;
        }
        const float* saved = checkpoints + (ch.item * s.chunks + chunk) * s.n;
        for (int n = 0; n < s.n; ++n) {
            const float an = s.A.p[c * s.A.s0 + n * s.A.s1];
            const float* Bn = ch.B + n * s.B.s2;
            const float* Cn = ch.C + n * s.C.s2;
            // The chunk's states again, from its checkpoint: hp[i] before step i, hs[i] after it.
            Pair steps[SELECTIVE_ITEMS];
            float bv[SELECTIVE_ITEMS], hp[SELECTIVE_ITEMS], hs[SELECTIVE_ITEMS];
            Pair local = identity_pair();
#pragma unroll
            for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
                int l = l0 + i;
                bv[i] = l < s.len ? Bn[l * s.B.s3] : 0.0f;
                steps[i] = l < s.len ? Pair{expf(dt[i] * an), dt[i] * uv[i] * bv[i]} : identity_pair();
                local = after(local, steps[i]);
            }
            Pair before = exclusive_up(warp_scan_up(local, lane), lane);
            float state = fmaf(before.p, saved[n], before.q);
            Pair adjoint = identity_pair(); // the reverse scan of x_t = ΔA_t·x_{t+1} + ΔA_t·g_t, g_t = gy_t·C_t
            float gc[SELECTIVE_ITEMS];
#pragma unroll
            for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
                hp[i] = state;
                state = fmaf(steps[i].p, state, steps[i].q);
                hs[i] = state;
                gc[i] = l0 + i < s.len ? gy[i] * Cn[(l0 + i) * s.C.s3] : 0.0f;
            }
#pragma unroll
            for (int i = SELECTIVE_ITEMS - 1; i >= 0; --i) adjoint = after(adjoint, Pair{steps[i].p, steps[i].p * gc[i]});
            Pair later = exclusive_down(warp_scan_down(adjoint, lane), lane);
            float next = fmaf(later.p, x[n], later.q); // x at the step after this lane's last
            float dAn = 0.0f;
#pragma unroll
            for (int i = SELECTIVE_ITEMS - 1; i >= 0; --i) {
                int l = l0 + i;
                float gh = gc[i] + next; // gh_t = g_t + ΔA_{t+1}·gh_{t+1}
                next = steps[i].p * gh;
                if (l >= s.len) continue;
                atomicAdd(dCg + (long long)n * s.len + l, gy[i] * hs[i]);
                atomicAdd(dBg + (long long)n * s.len + l, gh * dt[i] * uv[i]);
                float dExp = gh * hp[i] * steps[i].p; // through ΔA = exp(dt·A)
                dAn = fmaf(dExp, dt[i], dAn);
                ddt[i] += dExp * an + gh * bv[i] * uv[i];
                dui[i] = fmaf(gh * dt[i], bv[i], dui[i]);
            }
            float first = __shfl_sync(FULL_MASK, next, 0);
            dAn = warp_sum(dAn);
            __syncwarp(); // every lane has read x[n]
            if (lane == 0) {
                x[n] = first;
                dA[n] += dAn;
            }
            __syncwarp();
        }
#pragma unroll
        for (int i = 0; i < SELECTIVE_ITEMS; ++i) {
            int l = l0 + i;
            if (l >= s.len) break;
            float d = s.softplus ? ddt[i] * sigmoidf(pre_dt(s, ch, l)) : ddt[i];
            long long at = ch.item * s.len + l;
            ddelta[at] = d;
            du[at] = dui[i];
            dBias += d;
        }
    }
    float* mine = perItem + ch.item * (s.n + 2);
    for (int n = lane; n < s.n; n += 32) {
        mine[n] = dA[n];
        if (dh0 != nullptr) dh0[ch.item * s.n + n] = x[n]; // dh0 = ΔA_0·gh_0
    }
    dSkip = warp_sum(dSkip);
    dBias = warp_sum(dBias);
    if (lane == 0) {
        mine[s.n] = dSkip;
        mine[s.n + 1] = dBias;
    }
}

// dA (channels, n), dD and ddeltaBias (channels; null when absent): perItem summed over the batch
// in batch order, a thread per output.
extern "C" __global__ void selective_scan_param_grads_f32(const float* perItem, float* dA, float* dD, float* dBias,
                                                          int batch, int channels, int n) {
    GRID_STRIDE(i, (long long)channels * (n + 2)) {
        const int c = (int)(i / (n + 2)), k = (int)(i - (long long)c * (n + 2));
        float sum = 0.0f;
        for (int b = 0; b < batch; ++b) sum += perItem[((long long)b * channels + c) * (n + 2) + k];
        if (k < n) dA[(long long)c * n + k] = sum;
        else if (k == n && dD != nullptr) dD[c] = sum;
        else if (k == n + 1 && dBias != nullptr) dBias[c] = sum;
    }
}
