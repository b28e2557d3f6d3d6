package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.conv.PoolGeometry;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.DepthwiseConv;
import dev.symbiont.cpu.kernels.Im2colConv;
import dev.symbiont.cpu.kernels.PoolLoops;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.TileMath;
import dev.symbiont.cpu.kernels.VectorMaxPool;
import dev.symbiont.cpu.kernels.WinogradConv;

/**
 * The conv family on the CPU. A convolution takes one of four paths, chosen from its geometry:
 * depthwise (groups = C = O) runs the direct kernel ({@link DepthwiseConv}, one row
 * multiply-add per tap); a 3×3, stride-1 one with enough channels runs Winograd F(2×2, 3×3)
 * ({@link WinogradConv}, forward and both gradients; {@link ConvPath} says when, and its
 * property forces either path); a 1×1, stride-1, unpadded one is a GEMM per image on the input
 * as it lies; every other one builds im2col panels of a few output rows and multiplies them on
 * the backend's {@link Gemm} ({@link Im2colConv}). Pooling is direct loops per plane
 * ({@link PoolLoops}). Inputs of any strides are read in place when their rows are consecutive
 * (NCHW), else copied once into contiguous scratch (e.g. a channels-last view).
 */
public final class CpuConv implements ConvKernels {
    private static final String CONV = "conv2d", MAX = "max_pool2d", AVG = "avg_pool2d", ADAPTIVE = "adaptive_avg_pool2d";

    private final CpuTensors io;
    private final TileMath math;
    private final Im2colConv gemmConv;
    private final WinogradConv winograd;
    private final boolean vector;

    /** {@code vector} picks the Vector-API row kernels; the GEMM is whichever the backend uses. */
    public CpuConv(Backend backend, Gemm gemm, boolean vector) {
        this.io = new CpuTensors(backend);
        this.math = TileMath.of(vector);
        this.gemmConv = new Im2colConv(gemm, math);
        this.winograd = new WinogradConv(gemm, vector);
        this.vector = vector;
    }

    @Override
    public Tensor conv2d(Tensor x, Tensor weight, Tensor bias, ConvGeometry g) {
        boolean wino = takesWinograd(g);
        int cells = g.batch() * g.outChannels() * g.outPixels();
        HeapStorage out = wino ? io.emptyFloats(cells) : io.newFloats(cells);
        Rows w = io.rows(CONV, weight, g.outChannels(), g.patchSize()), b = io.vectorOf(CONV, bias);
        if (wino) {
            winograd.forward(planeRows(x, g), w, b, g, out.floats());
        } else if (g.depthwise()) {
            DepthwiseConv.forward(planeRows(x, g), w, b, g, out.floats(), math);
        } else {
            gemmConv.forward(input(x, g), w, b, g, out.floats());
        }
        return Tensor.of(out, g.outputShape());
    }

    @Override
    public ConvGrads conv2dBackward(Tensor gradOut, Tensor x, Tensor weight, ConvGeometry g,
                                    boolean inputGrad, boolean weightGrad, boolean biasGrad) {
        if (takesWinograd(g)) {
            return winogradBackward(gradOut, x, weight, g, inputGrad, weightGrad, biasGrad);
        }
        HeapStorage dx = inputGrad ? io.newFloats(x.numel()) : null;
        HeapStorage dw = weightGrad ? io.newFloats(weight.numel()) : null;
        HeapStorage db = biasGrad ? io.newFloats(g.outChannels()) : null;
        Rows w = io.rows(CONV, weight, g.outChannels(), g.patchSize());
        Rows xr = weightGrad ? (g.depthwise() ? planeRows(x, g) : input(x, g)) : null;
        if (g.depthwise()) {
            Rows grad = io.rows(CONV, gradOut, g.batch() * g.outChannels() * g.outH(), g.outW());
            DepthwiseConv.backward(grad, xr, w, g, floats(dx), floats(dw), floats(db), math);
        } else {
            Rows grad = io.rows(CONV, gradOut, g.batch() * g.outChannels(), g.outPixels());
            gemmConv.backward(grad, xr, w, g, floats(dx), floats(dw), floats(db));
        }
        return grads(dx, dw, db, g);
    }

    /** Whether g runs on Winograd now: a dense conv the property's path takes there (depthwise keeps its direct kernel). */
    private static boolean takesWinograd(ConvGeometry g) {
        return !g.depthwise() && ConvPath.current().winograd(g);
    }

    /** The Winograd path's gradients: each written whole, so none is zero-filled first. */
    private ConvGrads winogradBackward(Tensor gradOut, Tensor x, Tensor weight, ConvGeometry g,
                                       boolean inputGrad, boolean weightGrad, boolean biasGrad) {
        HeapStorage dx = inputGrad ? io.emptyFloats(x.numel()) : null;
        HeapStorage dw = weightGrad ? io.emptyFloats(weight.numel()) : null;
        HeapStorage db = biasGrad ? io.emptyFloats(g.outChannels()) : null;
        Rows w = io.rows(CONV, weight, g.outChannels(), g.patchSize());
        if (dx != null) {
            winograd.inputGradient(io.rows(CONV, gradOut, g.batch() * g.outChannels() * g.outH(), g.outW()), w, g, dx.floats());
        }
        if (dw != null || db != null) {
            Rows grad = io.rows(CONV, gradOut, g.batch() * g.outChannels(), g.outPixels());
            winograd.weightGradient(weightGrad ? planeRows(x, g) : null, grad, g, floats(dw), floats(db));
        }
        return grads(dx, dw, db, g);
    }

    private static ConvGrads grads(HeapStorage dx, HeapStorage dw, HeapStorage db, ConvGeometry g) {
        return new ConvGrads(dx == null ? null : Tensor.of(dx, g.inputShape()),
                dw == null ? null : Tensor.of(dw, g.weightShape()), db == null ? null : Tensor.of(db, g.outChannels()));
    }

    @Override
    public MaxPoolResult maxPool2d(Tensor x, PoolGeometry g) {
        int cells = g.batch() * g.channels() * g.outH() * g.outW();
        HeapStorage out = io.newFloats(cells);
        HeapStorage argmax = io.newLongs(cells);
        long[] indices = argmax.longs();
        Rows rows = io.rows(MAX, x, g.batch() * g.channels() * g.inH(), g.inW());
        if (vector && VectorMaxPool.applies(g)) {
            VectorMaxPool.forward(rows, g, out.floats(), indices);
        } else {
            PoolLoops.maxForward(rows, g, out.floats(), indices);
        }
        return new MaxPoolResult(Tensor.of(out, g.outputShape()),
                Tensor.of(argmax, g.outputShape()));
    }

    @Override
    public Tensor maxPool2dBackward(Tensor gradOut, Tensor indices, PoolGeometry g) {
        HeapStorage dx = io.newFloats(g.batch() * g.channels() * g.inH() * g.inW());
        long[] at = indices.isContiguous() && indices.layout().offset() == 0 && indices.dtype() == DType.INT64
                ? HeapStorage.of(indices.storage()).longs() : CpuTensors.longsOf(MAX, indices);
        PoolLoops.maxBackward(gradRows(MAX, gradOut, g), at, g, dx.floats());
        return Tensor.of(dx, g.inputShape());
    }

    @Override
    public Tensor avgPool2d(Tensor x, PoolGeometry g, boolean countIncludePad) {
        HeapStorage out = io.newFloats(g.batch() * g.channels() * g.outH() * g.outW());
        PoolLoops.avgForward(io.rows(AVG, x, g.batch() * g.channels() * g.inH(), g.inW()), g, countIncludePad, out.floats());
        return Tensor.of(out, g.outputShape());
    }

    @Override
    public Tensor avgPool2dBackward(Tensor gradOut, PoolGeometry g, boolean countIncludePad) {
        HeapStorage dx = io.newFloats(g.batch() * g.channels() * g.inH() * g.inW());
        PoolLoops.avgBackward(gradRows(AVG, gradOut, g), g, countIncludePad, dx.floats());
        return Tensor.of(dx, g.inputShape());
    }

    @Override
    public Tensor adaptiveAvgPool2d(Tensor x, int outH, int outW) {
        int planes = x.size(0) * x.size(1), h = x.size(2), w = x.size(3);
        HeapStorage out = io.newFloats(planes * outH * outW);
        PoolLoops.adaptive(io.rows(ADAPTIVE, x, planes * h, w), planes, h, w, outH, outW, out.floats(), false);
        return Tensor.of(out, x.size(0), x.size(1), outH, outW);
    }

    @Override
    public Tensor adaptiveAvgPool2dBackward(Tensor gradOut, int[] inputShape) {
        int planes = inputShape[0] * inputShape[1], outH = gradOut.size(2), outW = gradOut.size(3);
        HeapStorage dx = io.newFloats(planes * inputShape[2] * inputShape[3]);
        PoolLoops.adaptive(io.rows(ADAPTIVE, gradOut, planes * outH, outW), planes, inputShape[2], inputShape[3],
                outH, outW, dx.floats(), true);
        return Tensor.of(dx, inputShape);
    }

    /** x as the GEMM path reads it: (N·C, H·W) rows for a pointwise geometry, else (N·C·H, W). */
    private Rows input(Tensor x, ConvGeometry g) {
        return g.pointwise() ? io.rows(CONV, x, g.batch() * g.inChannels(), g.inH() * g.inW()) : planeRows(x, g);
    }

    private Rows planeRows(Tensor x, ConvGeometry g) {
        return io.rows(CONV, x, g.batch() * g.inChannels() * g.inH(), g.inW());
    }

    private Rows gradRows(String op, Tensor gradOut, PoolGeometry g) {
        return io.rows(op, gradOut, g.batch() * g.channels() * g.outH(), g.outW());
    }

    private static float[] floats(HeapStorage s) { return s == null ? null : s.floats(); }

    @Override
    public String toString() { return "CpuConv"; }
}
