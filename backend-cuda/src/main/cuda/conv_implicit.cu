// conv2d's forward as an implicit GEMM over float32 NCHW tensors, the variant
// -Dsymbiont.cuda.conv=implicit selects so that it can be measured against im2col + the GEMM:
// for each group g, out_g (O/G x N·L) = W_g (O/G x K) · X_g (K x N·L), K = C/G·kernelH·kernelW and
// L = outH·outW, where X_g's column (n, oh, ow) and row (c, i, j) name the input cell the tap reads
// (0 in the padding) — the im2col matrix, formed tile by tile in shared memory and never written.
// The bias is added as the tile is stored.
//
// Tiling as gemm.cu: a block of 256 threads computes 64 output channels x 64 output positions,
// walking K in steps of 16; each thread keeps a 4 x 4 register tile. Loads past a bound read zero
// and stores past one are skipped, so every size is exact.
#include "conv_window.cuh"
#include "register_tile.cuh"

#define TILE 64
#define TILE_K 16
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS) conv2d_implicit_f32(
        float* __restrict__ out, const float* __restrict__ x, const float* __restrict__ weight,
        const float* __restrict__ bias, Window w, int groups, int outChannels) {
    __shared__ float Ws[TILE_K][TILE];   // Ws[p][i] = W_g(o0 + i, k0 + p)
    __shared__ float Xs[TILE_K][TILE];   // Xs[p][j] = X_g(k0 + p, col0 + j)
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    const int g = blockIdx.z, cg = w.channels / groups, og = outChannels / groups, taps = w.kernelH * w.kernelW;
    const int k = cg * taps, pixels = w.outH * w.outW;
    const long long cols = (long long)w.batch * pixels;
    const long long col0 = (long long)blockIdx.x * TILE;
    const int o0 = blockIdx.y * TILE;
    const float* wg = weight + (long long)g * og * k;
    float acc[4][4];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) acc[r][c] = 0.0f;
    for (int k0 = 0; k0 < k; k0 += TILE_K) {
        for (int l = 0; l < TILE * TILE_K / THREADS; ++l) {
            int idx = t + l * THREADS;
            // W's tile: consecutive threads take consecutive taps of one output channel (its row).
            int p = idx % TILE_K, i = idx / TILE_K;
            Ws[p][i] = o0 + i < og && k0 + p < k ? wg[(long long)(o0 + i) * k + k0 + p] : 0.0f;
            // X's tile: consecutive threads take consecutive output positions (neighbouring input cells).
            int j = idx % TILE, q = idx / TILE;
            long long col = col0 + j;
            int kk = k0 + q;
            float v = 0.0f;
            if (col < cols && kk < k) {
                int n = (int)(col / pixels), pix = (int)(col % pixels);
                int c = kk / taps, tap = kk % taps;
                int h = pix / w.outW * w.strideH - w.padH + tap / w.kernelW * w.dilationH;
                int wc = pix % w.outW * w.strideW - w.padW + tap % w.kernelW * w.dilationW;
                if (h >= 0 && h < w.inH && wc >= 0 && wc < w.inW) {
                    v = x[(((long long)n * w.channels + (long long)g * cg + c) * w.inH + h) * w.inW + wc];
                }
            }
            Xs[q][j] = v;
        }
        __syncthreads();
        tile_fma<TILE_K, TILE>(Ws, Xs, acc, tx, ty);
        __syncthreads();
    }
    for (int r = 0; r < 4; ++r) {
        int o = o0 + tx + 16 * r;
        if (o >= og) continue;
        int channel = g * og + o;
        float b = bias != nullptr ? bias[channel] : 0.0f;
        for (int c = 0; c < 4; ++c) {
            long long col = col0 + ty + 16 * c;
            if (col >= cols) continue;
            long long n = col / pixels, pix = col % pixels;
            out[(n * outChannels + channel) * pixels + pix] = acc[r][c] + b;
        }
    }
}
