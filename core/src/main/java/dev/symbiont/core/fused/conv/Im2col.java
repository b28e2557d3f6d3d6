package dev.symbiont.core.fused.conv;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.ops.Creation;

/**
 * im2col and col2im written with tensor ops, for the reference kernels. A table lists, for
 * each kernel offset (i, j) and output position (oh, ow) in that order, the input cell the
 * window reads as h·W + w, or H·W for a cell in the padding; the input is flattened per plane
 * with one extra cell holding the padding value, so {@code index_select} does the padding
 * and the gather in one step and {@code scatter_add} undoes both.
 *
 * <p>The table is made on the backend from positions, comparisons and {@code where} — an affine
 * function of (i, j, oh, ow) — so a step on a device uploads nothing. Its float32 arithmetic
 * is exact while a plane has fewer than 2²⁴ cells; a larger plane's table is built on the host
 * and uploaded.
 */
final class Im2col {
    private Im2col() {}

    /** The (kernelH·kernelW·outH·outW) int64 table of a window geometry, on {@code backend}. */
    static Tensor table(Backend backend, int inH, int inW, int kernelH, int kernelW, int strideH, int strideW,
                        int padH, int padW, int dilationH, int dilationW, int outH, int outW) {
        if ((long) inH * inW >= Creation.EXACT_FLOAT_COUNT) {
            return hostTable(backend, inH, inW, kernelH, kernelW, strideH, strideW, padH, padW, dilationH, dilationW, outH, outW);
        }
        Tensor h = inputCoordinate(backend, kernelH, outH, strideH, padH, dilationH).reshape(kernelH, 1, outH, 1);
        Tensor w = inputCoordinate(backend, kernelW, outW, strideW, padW, dilationW).reshape(1, kernelW, 1, outW);
        Tensor inside = within(h, inH).mul(within(w, inW));                        // (kh, kw, outH, outW)
        Tensor padCell = Creation.full(backend, (double) inH * inW, DType.FLOAT32);
        return inside.where(h.mul(inW).add(w), padCell).to(DType.INT64).reshape(kernelH * kernelW * outH * outW);
    }

    /** The input coordinate o·stride − pad + i·dilation that kernel offset i reads for output o: (kernel, out) float32. */
    private static Tensor inputCoordinate(Backend backend, int kernel, int out, int stride, int pad, int dilation) {
        Tensor offsets = Creation.positions(backend, "im2col", kernel, DType.FLOAT32).mul(dilation).sub(pad);
        Tensor starts = Creation.positions(backend, "im2col", out, DType.FLOAT32).mul(stride);
        return offsets.reshape(kernel, 1).add(starts.reshape(1, out));
    }

    /** 1 where 0 ≤ coordinate &lt; size, else 0. */
    private static Tensor within(Tensor coordinate, int size) {
        return coordinate.ge(0).mul(coordinate.lt(size));
    }

    /** {@link #table} built on the host with loops and uploaded: the twin the tests hold the backend's table to. */
    static Tensor hostTable(Backend backend, int inH, int inW, int kernelH, int kernelW, int strideH, int strideW,
                            int padH, int padW, int dilationH, int dilationW, int outH, int outW) {
        long[] t = new long[kernelH * kernelW * outH * outW];
        int pad = inH * inW, k = 0;
        for (int i = 0; i < kernelH; i++) for (int j = 0; j < kernelW; j++) {
            for (int oh = 0; oh < outH; oh++) {
                int h = oh * strideH - padH + i * dilationH;
                for (int ow = 0; ow < outW; ow++) {
                    int w = ow * strideW - padW + j * dilationW;
                    t[k++] = h >= 0 && h < inH && w >= 0 && w < inW ? (long) h * inW + w : pad;
                }
            }
        }
        return Creation.upload(backend, DType.INT64, t, t.length, t.length);
    }

    static Tensor table(Backend backend, ConvGeometry g) {
        return table(backend, g.inH(), g.inW(), g.kernelH(), g.kernelW(), g.strideH(), g.strideW(), g.padH(), g.padW(),
                g.dilationH(), g.dilationW(), g.outH(), g.outW());
    }

    static Tensor table(Backend backend, PoolGeometry g) {
        return table(backend, g.inH(), g.inW(), g.kernelH(), g.kernelW(), g.strideH(), g.strideW(), g.padH(), g.padW(),
                g.dilationH(), g.dilationW(), g.outH(), g.outW());
    }

    /** x (N, C, H, W) as columns (N, C, table length): each cell read by the table, padding reading {@code padValue}. */
    static Tensor columns(Tensor x, Tensor table, double padValue) {
        int n = x.size(0), c = x.size(1), cells = x.size(2) * x.size(3);
        Tensor padCell = Creation.full(x.backend(), padValue, DType.FLOAT32, n, c, 1);
        return Tensor.cat(java.util.List.of(x.reshape(n, c, cells), padCell), 2).indexSelect(2, table);
    }

    /** col2im: columns (N, C, table length) summed back into the cells they were read from, (N, C, H, W). */
    static Tensor fold(Tensor columns, Tensor table, int[] inputShape) {
        int n = inputShape[0], c = inputShape[1], cells = inputShape[2] * inputShape[3];
        Tensor zeros = Creation.full(columns.backend(), 0, DType.FLOAT32, n, c, cells + 1);
        Tensor index = table.reshape(1, 1, table.size(0)).expand(n, c, table.size(0));
        return zeros.scatterAdd(2, index, columns.reshape(n, c, table.size(0))).narrow(2, 0, cells).reshape(inputShape);
    }
}
