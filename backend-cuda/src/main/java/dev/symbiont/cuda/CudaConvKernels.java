package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.core.fused.conv.PoolGeometry;
import dev.symbiont.core.fused.conv.ReferenceConv;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The conv family on {@code conv.cu}. A convolution is im2col (one kernel) and the backend's
 * GEMM ({@link CudaMatmul}, one batched call over images and groups); its input gradient is
 * weightᵀ·gradOut on the same GEMM folded back by a gather-form col2im, its weight gradient
 * gradOut·colsᵀ summed over the batch, its bias gradient a reduction. A 1×1, stride-1, unpadded
 * convolution skips im2col: the input already is its column matrix. Depthwise convolutions
 * (groups = C = O) run direct kernels instead, forward and both gradients, since their GEMMs
 * would be one row deep. The column matrix is built for at most {@value #MAX_COLUMN_ELEMENTS}
 * elements at a time: a larger batch goes through in chunks of images (one image at least).
 * {@code -Dsymbiont.cuda.conv=implicit} runs the forward instead as one implicit-GEMM kernel
 * ({@code conv_implicit.cu}: the column matrix formed tile by tile in shared memory, the bias in
 * its epilogue), so the two can be measured; the backward stays im2col.
 *
 * <p>Pooling runs one thread per output cell; every backward (max, average, adaptive) is in
 * gather form, one thread per input cell summing the gradients that reach it, so none needs
 * atomics or a zeroed buffer and the results are the same bits on every run. Operands of other
 * strides are copied contiguous first. Non-float32 or empty operands and indices that are not
 * int64 run the reference, counted by {@link Fallbacks}.
 */
final class CudaConvKernels extends ReferenceConv {
    /** The largest im2col matrix built at once (256 MiB of float32). */
    static final long MAX_COLUMN_ELEMENTS = 1L << 26;
    /** Threads of a depthwise weight-gradient block (one block per weight). */
    private static final int REDUCE_THREADS = 256;
    /** The implicit GEMM's output tile (channels and positions) and block size: conv_implicit.cu's TILE and THREADS. */
    private static final int IMPLICIT_TILE = 64, IMPLICIT_THREADS = 256;
    static final String ROUTE_PROPERTY = "symbiont.cuda.conv";
    private static final String GROUP = "conv", CONV = "conv2d", CONV_BACKWARD = "conv2d backward";
    private static final String MAX = "max_pool2d", AVG = "avg_pool2d", ADAPTIVE = "adaptive_avg_pool2d";

    private final FusedOperands io;
    private final long maxColumnElements;

    CudaConvKernels(CudaBackend backend) { this(backend, MAX_COLUMN_ELEMENTS); }

    /** With another cap on the im2col matrix's elements (tests use a small one to cross chunks). */
    CudaConvKernels(CudaBackend backend, long maxColumnElements) {
        this.io = new FusedOperands(backend);
        this.maxColumnElements = maxColumnElements;
    }

    // ---- convolution ---------------------------------------------------------------------------

    @Override
    public Tensor conv2d(Tensor x, Tensor weight, Tensor bias, ConvGeometry g) {
        if (!FusedOperands.nonEmptyFloats(CONV, x, weight, bias)) return super.conv2d(x, weight, bias, g);
        io.backend().enter();
        Tensor xs = FusedOperands.dense(x), w = FusedOperands.dense(weight);
        if (g.depthwise()) {
            Tensor out = io.empty(g.outputShape()), b = FusedOperands.dense(bias);
            launch("depthwise_conv2d_f32", out.numel(), KernelArgs.of().pointer(FusedOperands.address(out))
                    .pointer(FusedOperands.address(xs)).pointer(FusedOperands.address(w)).pointer(FusedOperands.address(b))
                    .struct(window(g, g.batch()), 4));
            return out;
        }
        if (implicitGemm() && !g.pointwise()) return implicitConv(xs, w, FusedOperands.dense(bias), g);
        Tensor groupedWeight = w.reshape(g.groups(), g.groupOutChannels(), g.patchSize());
        List<Tensor> parts = new ArrayList<>();
        int chunk = imagesPerChunk(g);
        for (int n0 = 0; n0 < g.batch(); n0 += chunk) {
            int images = Math.min(chunk, g.batch() - n0);
            Tensor cols = columns(xs.narrow(0, n0, images), g, images);                   // (n, G, K, L)
            parts.add(groupedWeight.matmul(cols).reshape(images, g.outChannels(), g.outH(), g.outW()));
        }
        Tensor out = parts.size() == 1 ? parts.get(0) : Tensor.cat(parts, 0);
        return bias == null ? out.contiguous() : out.add(bias.reshape(1, g.outChannels(), 1, 1));
    }

    @Override
    public ConvGrads conv2dBackward(Tensor gradOut, Tensor x, Tensor weight, ConvGeometry g,
                                    boolean inputGrad, boolean weightGrad, boolean biasGrad) {
        if (!FusedOperands.nonEmptyFloats(CONV_BACKWARD, gradOut, x, weight)) {
            return super.conv2dBackward(gradOut, x, weight, g, inputGrad, weightGrad, biasGrad);
        }
        io.backend().enter();
        Tensor gy = FusedOperands.dense(gradOut), xs = FusedOperands.dense(x), w = FusedOperands.dense(weight);
        Tensor db = biasGrad ? gy.sum(new int[] {0, 2, 3}, false) : null;
        if (g.depthwise()) {
            return new ConvGrads(inputGrad ? depthwiseInputGrad(gy, w, g) : null, weightGrad ? depthwiseWeightGrad(gy, xs, g) : null, db);
        }
        Tensor groupedWeightT = w.reshape(g.groups(), g.groupOutChannels(), g.patchSize()).transpose(-2, -1);
        List<Tensor> dxParts = new ArrayList<>();
        Tensor dw = null;
        int chunk = imagesPerChunk(g);
        for (int n0 = 0; n0 < g.batch(); n0 += chunk) {
            int images = Math.min(chunk, g.batch() - n0);
            Tensor g2 = gy.narrow(0, n0, images).reshape(images, g.groups(), g.groupOutChannels(), g.outPixels());
            if (inputGrad) dxParts.add(fold(groupedWeightT.matmul(g2), g, images));   // (n, G, K, L) → (n, C, H, W)
            if (weightGrad) {
                Tensor cols = columns(xs.narrow(0, n0, images), g, images);
                Tensor part = g2.matmul(cols.transpose(-2, -1)).sum(0, false);       // (G, O/G, K)
                dw = dw == null ? part : dw.add(part);
            }
        }
        Tensor dx = !inputGrad ? null : dxParts.size() == 1 ? dxParts.get(0) : Tensor.cat(dxParts, 0);
        return new ConvGrads(dx, dw == null ? null : dw.reshape(g.weightShape()), db);
    }

    /** Whether {@code -Dsymbiont.cuda.conv} (read at every call) names the implicit GEMM rather than im2col, the default. */
    static boolean implicitGemm() { return PropertyChoice.read(ROUTE_PROPERTY, Route.IM2COL) == Route.IMPLICIT; }

    /** How a dense or grouped convolution's forward runs. */
    enum Route { IM2COL, IMPLICIT }

    /** The forward as one implicit-GEMM kernel with the bias in its epilogue ({@code conv_implicit.cu}). */
    private Tensor implicitConv(Tensor x, Tensor w, Tensor bias, ConvGeometry g) {
        Tensor out = io.empty(g.outputShape());
        long columnTiles = ((long) g.batch() * g.outPixels() + IMPLICIT_TILE - 1) / IMPLICIT_TILE;
        int rowTiles = (g.groupOutChannels() + IMPLICIT_TILE - 1) / IMPLICIT_TILE;
        io.backend().kernels().launch("conv_implicit", "conv2d_implicit_f32", new Dim3((int) columnTiles, rowTiles, g.groups()),
                Dim3.of(IMPLICIT_THREADS), 0, KernelArgs.of().pointer(FusedOperands.address(out)).pointer(FusedOperands.address(x))
                        .pointer(FusedOperands.address(w)).pointer(FusedOperands.address(bias)).struct(window(g, g.batch()), 4)
                        .i32(g.groups()).i32(g.outChannels()));
        return out;
    }

    /** Images per im2col chunk: as many as keep the column matrix within the cap, at least one. */
    private int imagesPerChunk(ConvGeometry g) {
        long perImage = (long) g.inChannels() * g.kernelH() * g.kernelW() * g.outPixels();
        return (int) Math.max(1, Math.min(g.batch(), maxColumnElements / Math.max(1, perImage)));
    }

    /** im2col of contiguous x's first {@code images} images: (images, G, C/G·kh·kw, outH·outW). */
    private Tensor columns(Tensor x, ConvGeometry g, int images) {
        if (g.pointwise()) return x.reshape(images, g.groups(), g.patchSize(), g.outPixels());
        Tensor cols = io.empty(images, g.groups(), g.patchSize(), g.outPixels());
        launch("im2col_f32", cols.numel(), KernelArgs.of().pointer(FusedOperands.address(cols))
                .pointer(FusedOperands.address(x)).struct(window(g, images), 4));
        return cols;
    }

    /** col2im of columns (images, G, K, L), laid out as {@link #columns} makes them: (images, C, H, W). */
    private Tensor fold(Tensor cols, ConvGeometry g, int images) {
        Tensor dense = cols.contiguous();
        if (g.pointwise()) return dense.reshape(images, g.inChannels(), g.inH(), g.inW());
        Tensor dx = io.empty(images, g.inChannels(), g.inH(), g.inW());
        launch("col2im_f32", dx.numel(), KernelArgs.of().pointer(FusedOperands.address(dx))
                .pointer(FusedOperands.address(dense)).struct(window(g, images), 4));
        return dx;
    }

    private Tensor depthwiseInputGrad(Tensor gradOut, Tensor weight, ConvGeometry g) {
        Tensor dx = io.empty(g.inputShape());
        launch("depthwise_conv2d_input_grad_f32", dx.numel(), KernelArgs.of().pointer(FusedOperands.address(dx))
                .pointer(FusedOperands.address(gradOut)).pointer(FusedOperands.address(weight)).struct(window(g, g.batch()), 4));
        return dx;
    }

    /** One block per weight (c, i, j), its threads summing over the batch and the output positions. */
    private Tensor depthwiseWeightGrad(Tensor gradOut, Tensor x, ConvGeometry g) {
        Tensor dw = io.empty(g.weightShape());
        io.backend().kernels().launch(GROUP, "depthwise_conv2d_weight_grad_f32", Dim3.of((int) dw.numel()),
                Dim3.of(REDUCE_THREADS), 0, KernelArgs.of().pointer(FusedOperands.address(dw))
                        .pointer(FusedOperands.address(gradOut)).pointer(FusedOperands.address(x)).struct(window(g, g.batch()), 4));
        return dw;
    }

    // ---- pooling -------------------------------------------------------------------------------

    @Override
    public MaxPoolResult maxPool2d(Tensor x, PoolGeometry g) {
        if (!FusedOperands.nonEmptyFloats(MAX, x)) return super.maxPool2d(x, g);
        io.backend().enter();
        Tensor xs = FusedOperands.dense(x), out = io.empty(g.outputShape());
        Tensor indices = Tensor.of(io.backend().empty(DType.INT64, out.numel()), g.outputShape());
        launch("max_pool2d_f32", out.numel(), KernelArgs.of().pointer(FusedOperands.address(out))
                .pointer(FusedOperands.address(indices)).pointer(FusedOperands.address(xs)).struct(window(g), 4));
        return new MaxPoolResult(out, indices);
    }

    @Override
    public Tensor maxPool2dBackward(Tensor gradOut, Tensor indices, PoolGeometry g) {
        String op = MAX + " backward";
        if (!FusedOperands.nonEmptyFloats(op, gradOut)) return super.maxPool2dBackward(gradOut, indices, g);
        if (indices.dtype() != DType.INT64) {
            Fallbacks.record(op, "indices are not int64");
            return super.maxPool2dBackward(gradOut, indices, g);
        }
        io.backend().enter();
        Tensor gy = FusedOperands.dense(gradOut), at = FusedOperands.dense(indices), dx = io.empty(g.inputShape());
        launch("max_pool2d_backward_f32", dx.numel(), KernelArgs.of().pointer(FusedOperands.address(dx))
                .pointer(FusedOperands.address(gy)).pointer(FusedOperands.address(at)).struct(window(g), 4));
        return dx;
    }

    @Override
    public Tensor avgPool2d(Tensor x, PoolGeometry g, boolean countIncludePad) {
        if (!FusedOperands.nonEmptyFloats(AVG, x)) return super.avgPool2d(x, g, countIncludePad);
        return pool("avg_pool2d_f32", x, g.outputShape(), window(g), countIncludePad);
    }

    @Override
    public Tensor avgPool2dBackward(Tensor gradOut, PoolGeometry g, boolean countIncludePad) {
        if (!FusedOperands.nonEmptyFloats(AVG + " backward", gradOut)) return super.avgPool2dBackward(gradOut, g, countIncludePad);
        return pool("avg_pool2d_backward_f32", gradOut, g.inputShape(), window(g), countIncludePad);
    }

    @Override
    public Tensor adaptiveAvgPool2d(Tensor x, int outH, int outW) {
        if (!FusedOperands.nonEmptyFloats(ADAPTIVE, x)) return super.adaptiveAvgPool2d(x, outH, outW);
        int[] s = x.shape();
        return pool("adaptive_avg_pool2d_f32", x, new int[] {s[0], s[1], outH, outW}, adaptiveWindow(s, outH, outW), null);
    }

    @Override
    public Tensor adaptiveAvgPool2dBackward(Tensor gradOut, int[] inputShape) {
        if (!FusedOperands.nonEmptyFloats(ADAPTIVE + " backward", gradOut)) return super.adaptiveAvgPool2dBackward(gradOut, inputShape);
        return pool("adaptive_avg_pool2d_backward_f32", gradOut, inputShape,
                adaptiveWindow(inputShape, gradOut.size(2), gradOut.size(3)), null);
    }

    /** A one-thread-per-result pooling kernel reading {@code in} into a new (shape) tensor; countIncludePad is passed when given. */
    private Tensor pool(String kernel, Tensor in, int[] shape, byte[] window, Boolean countIncludePad) {
        io.backend().enter();
        Tensor dense = FusedOperands.dense(in), out = io.empty(shape);
        KernelArgs args = KernelArgs.of().pointer(FusedOperands.address(out)).pointer(FusedOperands.address(dense)).struct(window, 4);
        if (countIncludePad != null) args.i32(countIncludePad ? 1 : 0);
        launch(kernel, out.numel(), args);
        return out;
    }

    // ---- geometry ------------------------------------------------------------------------------

    /** The kernels' {@code Window} of a convolution over {@code images} images. */
    private static byte[] window(ConvGeometry g, int images) {
        return window(images, g.inChannels(), g.inH(), g.inW(), g.kernelH(), g.kernelW(), g.strideH(), g.strideW(),
                g.padH(), g.padW(), g.dilationH(), g.dilationW(), g.outH(), g.outW());
    }

    private static byte[] window(PoolGeometry g) {
        return window(g.batch(), g.channels(), g.inH(), g.inW(), g.kernelH(), g.kernelW(), g.strideH(), g.strideW(),
                g.padH(), g.padW(), g.dilationH(), g.dilationW(), g.outH(), g.outW());
    }

    /** Adaptive pooling reads only the sizes: input (N, C, H, W) to (outH, outW). */
    private static byte[] adaptiveWindow(int[] input, int outH, int outW) {
        return window(input[0], input[1], input[2], input[3], 1, 1, 1, 1, 0, 0, 1, 1, outH, outW);
    }

    /** The 14 ints of {@code struct Window} in conv.cu, in its field order. */
    private static byte[] window(int... fields) {
        ByteBuffer buf = ByteBuffer.allocate(4 * fields.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int f : fields) buf.putInt(f);
        return buf.array();
    }

    private void launch(String kernel, long n, KernelArgs args) {
        io.backend().kernels().launch(GROUP, kernel, n, args);
    }

    @Override
    public String toString() { return "CudaConvKernels"; }
}
