// The conv family over float32 NCHW tensors (dev.symbiont.core.fused.conv): im2col and its
// gather-form col2im for the GEMM convolution, the direct depthwise convolution and its
// gradients, and max, average and adaptive average pooling with their gradients. Every operand is
// contiguous from its pointer. Gradients that fold many outputs into one input cell are written
// in gather form: one thread per input cell sums what reaches it, so no atomics, no zero-filled
// buffer, and the same bits on every run.
#include "common.cuh"
#include "conv_window.cuh"
#include "rows.cuh"

// Splits a row-major position in (planes, rows, cols) into its plane, row and column.
__device__ __forceinline__ long long split(long long e, int rows, int cols, int& row, int& col) {
    col = (int)(e % cols);
    long long r = e / cols;
    row = (int)(r % rows);
    return r / rows;
}

// The output position o along one dim whose tap `tap` reads input cell `in`, or −1 when none does.
__device__ __forceinline__ int reader(int in, int tap, int stride, int pad, int dilation, int out) {
    int t = in + pad - tap * dilation;
    if (t < 0 || t % stride != 0) return -1;
    t /= stride;
    return t < out ? t : -1;
}

// Calls f(i, j, oh, ow) for every tap (i, j) of every output (oh, ow) whose window reads input
// cell (h, c): the loops of every gather-form gradient. Dilation 1 when `dilated` is false.
template <class F>
__device__ __forceinline__ void for_each_reader(const Window& w, int h, int c, bool dilated, F f) {
    for (int i = 0; i < w.kernelH; ++i) {
        int oh = reader(h, i, w.strideH, w.padH, dilated ? w.dilationH : 1, w.outH);
        if (oh < 0) continue;
        for (int j = 0; j < w.kernelW; ++j) {
            int ow = reader(c, j, w.strideW, w.padW, dilated ? w.dilationW : 1, w.outW);
            if (ow >= 0) f(i, j, oh, ow);
        }
    }
}

// cols (N·C, kernelH, kernelW, outH, outW) ← x (N·C, inH, inW): the window cell each tap reads,
// 0 in the padding. Viewed as (N, groups, C/groups·kernelH·kernelW, outH·outW) it is each
// group's im2col matrix.
extern "C" __global__ void im2col_f32(float* __restrict__ cols, const float* __restrict__ x, Window w) {
    const long long total = (long long)w.batch * w.channels * w.kernelH * w.kernelW * w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int oh, ow, i, j;
        long long r = split(e, w.outH, w.outW, oh, ow);
        long long plane = split(r, w.kernelH, w.kernelW, i, j);
        int h = oh * w.strideH - w.padH + i * w.dilationH, c = ow * w.strideW - w.padW + j * w.dilationW;
        bool inside = h >= 0 && h < w.inH && c >= 0 && c < w.inW;
        cols[e] = inside ? x[(plane * w.inH + h) * w.inW + c] : 0.0f;
    }
}

// col2im: dx (N·C, inH, inW) = Σ of the cols cells (as im2col_f32 lays them out) read from each cell.
extern "C" __global__ void col2im_f32(float* __restrict__ dx, const float* __restrict__ cols, Window w) {
    const long long total = (long long)w.batch * w.channels * w.inH * w.inW;
    const long long pixels = (long long)w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int h, c;
        long long plane = split(e, w.inH, w.inW, h, c);
        float acc = 0.0f;
        for_each_reader(w, h, c, true, [&](int i, int j, int oh, int ow) {
            acc += cols[((plane * w.kernelH + i) * w.kernelW + j) * pixels + (long long)oh * w.outW + ow];
        });
        dx[e] = acc;
    }
}

// Depthwise: out (N, C, outH, outW) = bias[c] + Σ_{i,j} weight[c, i, j]·x[n, c, window cell].
extern "C" __global__ void depthwise_conv2d_f32(float* __restrict__ out, const float* __restrict__ x,
                                                const float* __restrict__ weight, const float* __restrict__ bias, Window w) {
    const long long total = (long long)w.batch * w.channels * w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int oh, ow;
        long long plane = split(e, w.outH, w.outW, oh, ow);
        int ch = (int)(plane % w.channels);
        const float* xp = x + plane * w.inH * w.inW;
        const float* wp = weight + (long long)ch * w.kernelH * w.kernelW;
        float acc = 0.0f;
        for (int i = 0; i < w.kernelH; ++i) {
            int h = oh * w.strideH - w.padH + i * w.dilationH;
            if (h < 0 || h >= w.inH) continue;
            for (int j = 0; j < w.kernelW; ++j) {
                int c = ow * w.strideW - w.padW + j * w.dilationW;
                if (c >= 0 && c < w.inW) acc += wp[i * w.kernelW + j] * xp[(long long)h * w.inW + c];
            }
        }
        out[e] = bias == nullptr ? acc : acc + bias[ch];
    }
}

// Depthwise input gradient: dx[n, c, h, w] = Σ over the taps reading it of weight[c, i, j]·gradOut[n, c, oh, ow].
extern "C" __global__ void depthwise_conv2d_input_grad_f32(float* __restrict__ dx, const float* __restrict__ gradOut,
                                                           const float* __restrict__ weight, Window w) {
    const long long total = (long long)w.batch * w.channels * w.inH * w.inW;
    GRID_STRIDE(e, total) {
        int h, c;
        long long plane = split(e, w.inH, w.inW, h, c);
        const float* gp = gradOut + plane * w.outH * w.outW;
        const float* wp = weight + (plane % w.channels) * w.kernelH * w.kernelW;
        float acc = 0.0f;
        for_each_reader(w, h, c, true, [&](int i, int j, int oh, int ow) {
            acc += wp[i * w.kernelW + j] * gp[(long long)oh * w.outW + ow];
        });
        dx[e] = acc;
    }
}

// Depthwise weight gradient, one block per (c, i, j): dweight = Σ_{n, oh, ow} gradOut·x at the tap's cell.
// blockDim.x is a multiple of 32 (block_sum).
extern "C" __global__ void depthwise_conv2d_weight_grad_f32(float* __restrict__ dweight, const float* __restrict__ gradOut,
                                                            const float* __restrict__ x, Window w) {
    const int taps = w.kernelH * w.kernelW;
    const int ch = blockIdx.x / taps, i = (blockIdx.x % taps) / w.kernelW, j = blockIdx.x % w.kernelW;
    const long long pixels = (long long)w.outH * w.outW, count = w.batch * pixels;
    float acc = 0.0f;
    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
        long long n = k / pixels, p = k % pixels;
        int oh = (int)(p / w.outW), ow = (int)(p % w.outW);
        int h = oh * w.strideH - w.padH + i * w.dilationH, c = ow * w.strideW - w.padW + j * w.dilationW;
        if (h < 0 || h >= w.inH || c < 0 || c >= w.inW) continue;
        long long plane = n * w.channels + ch;
        acc += gradOut[plane * pixels + p] * x[(plane * w.inH + h) * w.inW + c];
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) dweight[blockIdx.x] = acc;
}

// Max pooling: each window's maximum and its cell h·inW + w, the first in window order on ties
// (a NaN wins and stays, as PyTorch's).
extern "C" __global__ void max_pool2d_f32(float* __restrict__ out, long long* __restrict__ indices,
                                          const float* __restrict__ x, Window w) {
    const long long total = (long long)w.batch * w.channels * w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int oh, ow;
        long long plane = split(e, w.outH, w.outW, oh, ow);
        const float* xp = x + plane * w.inH * w.inW;
        float best = __int_as_float(0xff800000);
        long long at = -1;
        for (int i = 0; i < w.kernelH; ++i) {
            int h = oh * w.strideH - w.padH + i * w.dilationH;
            if (h < 0 || h >= w.inH) continue;
            for (int j = 0; j < w.kernelW; ++j) {
                int c = ow * w.strideW - w.padW + j * w.dilationW;
                if (c < 0 || c >= w.inW) continue;
                long long cell = (long long)h * w.inW + c;
                float v = xp[cell];
                if (at < 0 || v > best || (v != v && best == best)) {
                    best = v;
                    at = cell;
                }
            }
        }
        out[e] = best;
        indices[e] = at;
    }
}

// Max pooling's gradient in gather form: each input cell sums the gradients of the windows that
// read it and chose it.
extern "C" __global__ void max_pool2d_backward_f32(float* __restrict__ dx, const float* __restrict__ gradOut,
                                                   const long long* __restrict__ indices, Window w) {
    const long long total = (long long)w.batch * w.channels * w.inH * w.inW;
    const long long pixels = (long long)w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int h, c;
        long long plane = split(e, w.inH, w.inW, h, c);
        const long long cell = (long long)h * w.inW + c;
        float acc = 0.0f;
        for_each_reader(w, h, c, true, [&](int, int, int oh, int ow) {
            long long o = plane * pixels + (long long)oh * w.outW + ow;
            if (indices[o] == cell) acc += gradOut[o];
        });
        dx[e] = acc;
    }
}

// Average pooling's divisor at (oh, ow): PoolGeometry.divisor.
__device__ __forceinline__ float pool_divisor(const Window& w, int oh, int ow, int countIncludePad) {
    int h0 = oh * w.strideH - w.padH, c0 = ow * w.strideW - w.padW;
    int h1 = min(h0 + w.kernelH, w.inH + w.padH), c1 = min(c0 + w.kernelW, w.inW + w.padW);
    if (!countIncludePad) {
        h0 = max(h0, 0);
        c0 = max(c0, 0);
        h1 = min(h1, w.inH);
        c1 = min(c1, w.inW);
    }
    return (float)((h1 - h0) * (c1 - c0));
}

// Average pooling (dilation 1): the window's sum over its divisor, padding reading 0.
extern "C" __global__ void avg_pool2d_f32(float* __restrict__ out, const float* __restrict__ x, Window w, int countIncludePad) {
    const long long total = (long long)w.batch * w.channels * w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int oh, ow;
        long long plane = split(e, w.outH, w.outW, oh, ow);
        const float* xp = x + plane * w.inH * w.inW;
        int h0 = oh * w.strideH - w.padH, c0 = ow * w.strideW - w.padW;
        float acc = 0.0f;
        for (int h = max(h0, 0); h < min(h0 + w.kernelH, w.inH); ++h) {
            for (int c = max(c0, 0); c < min(c0 + w.kernelW, w.inW); ++c) acc += xp[(long long)h * w.inW + c];
        }
        out[e] = acc / pool_divisor(w, oh, ow, countIncludePad);
    }
}

// Average pooling's gradient in gather form: each input cell sums gradOut/divisor of the windows covering it.
extern "C" __global__ void avg_pool2d_backward_f32(float* __restrict__ dx, const float* __restrict__ gradOut, Window w,
                                                   int countIncludePad) {
    const long long total = (long long)w.batch * w.channels * w.inH * w.inW;
    const long long pixels = (long long)w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int h, c;
        long long plane = split(e, w.inH, w.inW, h, c);
        float acc = 0.0f;
        for_each_reader(w, h, c, false, [&](int, int, int oh, int ow) {
            acc += gradOut[plane * pixels + (long long)oh * w.outW + ow] / pool_divisor(w, oh, ow, countIncludePad);
        });
        dx[e] = acc;
    }
}

// PyTorch's adaptive window along one dim: [floor(o·in/out), ceil((o+1)·in/out)).
__device__ __forceinline__ int adaptive_start(int o, int in, int out) { return (int)((long long)o * in / out); }

__device__ __forceinline__ int adaptive_end(int o, int in, int out) { return (int)(((long long)(o + 1) * in + out - 1) / out); }

// Adaptive average pooling: out (N·C, outH, outW) the mean of each adaptive window of x (N·C, inH, inW).
extern "C" __global__ void adaptive_avg_pool2d_f32(float* __restrict__ out, const float* __restrict__ x, Window w) {
    const long long total = (long long)w.batch * w.channels * w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int oh, ow;
        long long plane = split(e, w.outH, w.outW, oh, ow);
        const float* xp = x + plane * w.inH * w.inW;
        int h0 = adaptive_start(oh, w.inH, w.outH), h1 = adaptive_end(oh, w.inH, w.outH);
        int c0 = adaptive_start(ow, w.inW, w.outW), c1 = adaptive_end(ow, w.inW, w.outW);
        float acc = 0.0f;
        for (int h = h0; h < h1; ++h) {
            for (int c = c0; c < c1; ++c) acc += xp[(long long)h * w.inW + c];
        }
        out[e] = acc / (float)((h1 - h0) * (c1 - c0));
    }
}

// The windows along one dim that hold input cell `in`: [first, last]. Window floor(in·out/in_size)
// holds it; its neighbours may too where windows overlap.
__device__ __forceinline__ void adaptive_readers(int in, int inSize, int out, int& first, int& last) {
    int o = (int)((long long)in * out / inSize);
    first = o;
    while (first > 0 && adaptive_end(first - 1, inSize, out) > in) --first;
    last = o;
    while (last + 1 < out && adaptive_start(last + 1, inSize, out) <= in) ++last;
}

// Adaptive average pooling's gradient in gather form: each input cell sums gradOut/window size of the windows holding it.
extern "C" __global__ void adaptive_avg_pool2d_backward_f32(float* __restrict__ dx, const float* __restrict__ gradOut, Window w) {
    const long long total = (long long)w.batch * w.channels * w.inH * w.inW;
    const long long pixels = (long long)w.outH * w.outW;
    GRID_STRIDE(e, total) {
        int h, c, oh0, oh1, ow0, ow1;
        long long plane = split(e, w.inH, w.inW, h, c);
        adaptive_readers(h, w.inH, w.outH, oh0, oh1);
        adaptive_readers(c, w.inW, w.outW, ow0, ow1);
        float acc = 0.0f;
        for (int oh = oh0; oh <= oh1; ++oh) {
            int rows = adaptive_end(oh, w.inH, w.outH) - adaptive_start(oh, w.inH, w.outH);
            for (int ow = ow0; ow <= ow1; ++ow) {
                int cols = adaptive_end(ow, w.inW, w.outW) - adaptive_start(ow, w.inW, w.outW);
                acc += gradOut[plane * pixels + (long long)oh * w.outW + ow] / (float)(rows * cols);
            }
        }
        dx[e] = acc;
    }
}
