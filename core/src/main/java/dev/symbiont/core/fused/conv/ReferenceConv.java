package dev.symbiont.core.fused.conv;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.ops.Elementwise;

/**
 * The conv family's reference, written with tensor ops so it runs on every backend. Convolution
 * is im2col ({@link Im2col}: one {@code index_select}) and a batched matmul over the groups;
 * its input gradient folds weightᵀ·gradOut back with {@code scatter_add}, its weight gradient is
 * gradOut·colsᵀ. Pooling reads the same columns and reduces over the window; adaptive average
 * pooling is two matmuls with averaging matrices, P_h·x·P_wᵀ. Every table (the im2col index,
 * the divisors, the averaging matrices) is made on the backend from primitives, so a step on a
 * device uploads nothing.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 */
public class ReferenceConv implements ConvKernels {

    @Override
    public Tensor conv2d(Tensor x, Tensor weight, Tensor bias, ConvGeometry g) {
        Tensor cols = groupedColumns(x, Im2col.table(x.backend(), g), g);           // (N, G, C/G·kh·kw, L)
        Tensor out = groupedWeight(weight, g).matmul(cols).reshape(g.outputShape()); // (G, O/G, K)·(N, G, K, L)
        return bias == null ? out : out.add(bias.reshape(1, g.outChannels(), 1, 1));
    }

    @Override
    public ConvGrads conv2dBackward(Tensor gradOut, Tensor x, Tensor weight, ConvGeometry g,
                                    boolean inputGrad, boolean weightGrad, boolean biasGrad) {
        Tensor table = Im2col.table(x.backend(), g);
        Tensor g2 = gradOut.reshape(g.batch(), g.groups(), g.groupOutChannels(), g.outPixels());
        Tensor dx = null, dw = null, db = null;
        if (inputGrad) {
            Tensor dcols = groupedWeight(weight, g).transpose(-2, -1).matmul(g2);    // (N, G, K, L)
            dx = Im2col.fold(dcols, table, g.inputShape());
        }
        if (weightGrad) {
            Tensor cols = groupedColumns(x, table, g);
            dw = g2.matmul(cols.transpose(-2, -1)).sum(0, false).reshape(g.weightShape());
        }
        if (biasGrad) db = gradOut.sum(new int[] {0, 2, 3}, false);
        return new ConvGrads(dx, dw, db);
    }

    @Override
    public MaxPoolResult maxPool2d(Tensor x, PoolGeometry g) {
        Tensor table = Im2col.table(x.backend(), g);
        int n = g.batch(), c = g.channels(), window = g.kernelH() * g.kernelW(), cells = g.outH() * g.outW();
        Tensor cols = Im2col.columns(x, table, Double.NEGATIVE_INFINITY).reshape(n, c, window, cells);
        Tensor max = cols.amax(new int[] {2}, true);                                                   // (N, C, 1, L)
        // An all −∞ window takes its first in-bounds cell (as the kernels and torch do), not a padding tap.
        // (Window positions are small, so choosing between them in float32 is exact.)
        Tensor firstInBounds = table.lt(g.inH() * g.inW()).reshape(1, 1, window, cells).argmax(2, true);   // lt gives 0/1 float32
        Tensor allInf = max.eq(Double.NEGATIVE_INFINITY);
        Tensor which = allInf.where(firstInBounds.to(DType.FLOAT32).expand(n, c, 1, cells),
                cols.argmax(2, true).to(DType.FLOAT32)).to(DType.INT64);                        // (N, C, 1, L)
        Tensor indices = table.reshape(1, 1, window, cells).expand(n, c, window, cells).gather(2, which);
        return new MaxPoolResult(max.reshape(g.outputShape()), indices.reshape(g.outputShape()));
    }

    @Override
    public Tensor maxPool2dBackward(Tensor gradOut, Tensor indices, PoolGeometry g) {
        int n = g.batch(), c = g.channels(), cells = g.outH() * g.outW();
        Tensor zeros = Creation.full(gradOut.backend(), 0, DType.FLOAT32, n, c, g.inH() * g.inW());
        return zeros.scatterAdd(2, indices.reshape(n, c, cells), gradOut.reshape(n, c, cells)).reshape(g.inputShape());
    }

    @Override
    public Tensor avgPool2d(Tensor x, PoolGeometry g, boolean countIncludePad) {
        int n = g.batch(), c = g.channels(), window = g.kernelH() * g.kernelW();
        Tensor cols = Im2col.columns(x, Im2col.table(x.backend(), g), 0).reshape(n, c, window, g.outH() * g.outW());
        return cols.sum(2, false).div(divisors(x.backend(), g, countIncludePad)).reshape(g.outputShape());
    }

    @Override
    public Tensor avgPool2dBackward(Tensor gradOut, PoolGeometry g, boolean countIncludePad) {
        int n = g.batch(), c = g.channels(), window = g.kernelH() * g.kernelW(), cells = g.outH() * g.outW();
        Tensor share = gradOut.reshape(n, c, 1, cells).div(divisors(gradOut.backend(), g, countIncludePad))
                .expand(n, c, window, cells);
        return Im2col.fold(share, Im2col.table(gradOut.backend(), g), g.inputShape());
    }

    @Override
    public Tensor adaptiveAvgPool2d(Tensor x, int outH, int outW) {
        Tensor rows = averaging(x.backend(), outH, x.size(2));                       // (outH, H)
        Tensor cols = averaging(x.backend(), outW, x.size(3));                       // (outW, W)
        return rows.matmul(x).matmul(cols.transpose(0, 1));
    }

    @Override
    public Tensor adaptiveAvgPool2dBackward(Tensor gradOut, int[] inputShape) {
        Tensor rows = averaging(gradOut.backend(), gradOut.size(2), inputShape[2]);
        Tensor cols = averaging(gradOut.backend(), gradOut.size(3), inputShape[3]);
        return rows.transpose(0, 1).matmul(gradOut).matmul(cols);
    }

    /** x's columns per group: (N, G, C/G·kh·kw, outH·outW). */
    private static Tensor groupedColumns(Tensor x, Tensor table, ConvGeometry g) {
        return Im2col.columns(x, table, 0).reshape(g.batch(), g.groups(), g.patchSize(), g.outPixels());
    }

    /** The weight as one (O/G, C/G·kh·kw) matrix per group. */
    private static Tensor groupedWeight(Tensor weight, ConvGeometry g) {
        return weight.reshape(g.groups(), g.groupOutChannels(), g.patchSize());
    }

    /**
     * The average's divisor per output position, (outH·outW): {@link PoolGeometry#divisor}, the
     * window's extent along H times its extent along W, each made on the backend from positions.
     */
    static Tensor divisors(Backend backend, PoolGeometry g, boolean countIncludePad) {
        Tensor rows = extents(backend, g.outH(), g.strideH(), g.padH(), g.kernelH(), g.inH(), countIncludePad);
        Tensor cols = extents(backend, g.outW(), g.strideW(), g.padW(), g.kernelW(), g.inW(), countIncludePad);
        return rows.reshape(g.outH(), 1).mul(cols.reshape(1, g.outW())).reshape(g.outH() * g.outW());
    }

    /**
     * Along one dim, the cells of each window [o·stride − pad, o·stride − pad + kernel) clipped to
     * input + padding, or with {@code countIncludePad} false to the input alone: (out) float32.
     */
    private static Tensor extents(Backend backend, int out, int stride, int pad, int kernel, int in, boolean countIncludePad) {
        Tensor start = Creation.positions(backend, "avg_pool2d", out, DType.FLOAT32).mul(stride).sub(pad);
        Tensor end = Elementwise.binaryScalar(BinaryOp.MINIMUM, start.add(kernel), in + pad);
        if (countIncludePad) return end.sub(start);
        return Elementwise.binaryScalar(BinaryOp.MINIMUM, end, in).sub(Elementwise.binaryScalar(BinaryOp.MAXIMUM, start, 0));
    }

    /**
     * Row o averages PyTorch's adaptive window of o: (out, in). Cell i is in window o when
     * floor(o·in/out) ≤ i &lt; ceil((o+1)·in/out), i.e. o·in &lt; (i+1)·out and i·out &lt; (o+1)·in,
     * compared on the backend; the products are exact in float32 while in·out ≤ 2²⁴, beyond
     * which the matrix is built on the host.
     */
    static Tensor averaging(Backend backend, int out, int in) {
        if ((long) in * out > Creation.EXACT_FLOAT_COUNT) return hostAveraging(backend, out, in);
        Tensor o = Creation.positions(backend, "adaptive_avg_pool2d", out, DType.FLOAT32).reshape(out, 1);
        Tensor i = Creation.positions(backend, "adaptive_avg_pool2d", in, DType.FLOAT32).reshape(1, in);
        Tensor inWindow = o.mul(in).lt(i.add(1).mul(out)).mul(i.mul(out).lt(o.add(1).mul(in)));
        return inWindow.div(inWindow.sum(1, true));
    }

    /** {@link #averaging} built on the host and uploaded: the twin the tests hold the backend's matrix to. */
    static Tensor hostAveraging(Backend backend, int out, int in) {
        float[] m = new float[out * in];
        for (int o = 0; o < out; o++) {
            int s = PoolGeometry.adaptiveStart(o, in, out), e = PoolGeometry.adaptiveEnd(o, in, out);
            for (int i = s; i < e; i++) m[o * in + i] = 1f / (e - s);
        }
        return Creation.upload(backend, DType.FLOAT32, m, m.length, out, in);
    }
}
