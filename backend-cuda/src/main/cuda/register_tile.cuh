// The inner step the tiled float32 products share (gemm.cu, grouped_gemm.cuh, conv_implicit.cu):
// a thread's 4 x 4 register tile of C, rows rowLane + 16r and columns colLane + 16c, so a warp's
// shared-memory reads fall in distinct banks.
#pragma once

// acc += As[p][rows] · Bs[p][cols] over the K_STEP rows of the two shared tiles (row length STRIDE).
template <int K_STEP, int STRIDE>
__device__ __forceinline__ void tile_fma(const float (*As)[STRIDE], const float (*Bs)[STRIDE], float acc[4][4],
                                         int rowLane, int colLane) {
    for (int p = 0; p < K_STEP; ++p) {
        float ar[4], br[4];
        for (int r = 0; r < 4; ++r) ar[r] = As[p][rowLane + 16 * r];
        for (int c = 0; c < 4; ++c) br[c] = Bs[p][colLane + 16 * c];
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) acc[r][c] = fmaf(ar[r], br[c], acc[r][c]);
    }
}
