package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.scan.ReferenceScan;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The scan family on {@code scan.cu}. The linear scan and its backward run {@link CudaLinearScan}
 * (block-local or grid-wide). The selective scan runs a warp per (batch, channel), four channels a
 * block, L in chunks of {@value #CHUNK} steps with the N states carried between chunks; operands
 * are read in place through their strides. The forward keeps for the backward, in
 * {@link SelectiveScanResult#saved}, one flat float32 tensor: the states entering every chunk
 * (batch, d_inner, ⌈L/{@value #CHUNK}⌉, N) and, when there is a gate z, y + D·u (batch, d_inner, L),
 * so the backward recomputes at most one chunk of states per channel and needs no second pass
 * for dz. The backward adds dB and dC over each group's channels with atomics (the order of the
 * float additions, and so the last bits, may vary from run to run); dA, dD and ddeltaBias are
 * summed over the batch by a second kernel in a fixed order.
 *
 * <p>Mamba-2's chunked SSD runs {@link CudaSsd} ({@code ssd.cu}, {@code ssd_backward.cu}).
 *
 * <p>Empty operands, more than {@value #MAX_STATES} states, a batch above the grid's
 * {@value #MAX_BATCH} or a linear scan of rank above {@value Strided#MAX_RANK} run the inherited
 * reference, counted by {@link Fallbacks}.
 */
final class CudaScanKernels extends ReferenceScan {
    static final int CHUNK = 128, WARPS = 4, MAX_STATES = 256, MAX_BATCH = 65_535;
    private static final String LINEAR = "linear_scan", SELECTIVE = "selective_scan", GROUP = "scan";
    /** {@code struct Op4 { float* p; long long s0, s1, s2, s3; }}. */
    private static final int OP4_BYTES = 40;

    private final FusedOperands io;
    private final CudaLinearScan linear;
    private final CudaSsd ssd;

    CudaScanKernels(CudaBackend backend) {
        this.io = new FusedOperands(backend);
        this.linear = new CudaLinearScan(backend);
        this.ssd = new CudaSsd(backend);
    }

    @Override
    public SsdResult ssdChunked(SsdArgs args) {
        SsdResult r = ssd.forward(args);
        return r != null ? r : super.ssdChunked(args);
    }

    @Override
    public SsdGrads ssdChunkedBackward(SsdArgs args, SsdResult forward, Tensor gradY, Tensor gradFinalState) {
        SsdGrads g = ssd.backward(args, forward, gradY, gradFinalState);
        return g != null ? g : super.ssdChunkedBackward(args, forward, gradY, gradFinalState);
    }

    @Override
    public Tensor linearScan(Tensor a, Tensor b, Tensor h0, int dim) {
        if (!linearFits(LINEAR, a, b, h0)) return super.linearScan(a, b, h0, dim);
        return linear.forward(a, b, h0, dim);
    }

    @Override
    public LinearScanGrads linearScanBackward(Tensor a, Tensor h, Tensor h0, Tensor gradH, int dim, Wanted want) {
        if (!linearFits(LINEAR + " backward", a, h, h0, gradH)) return super.linearScanBackward(a, h, h0, gradH, dim, want);
        return linear.backward(a, h, h0, gradH, dim, want);
    }

    @Override
    public SelectiveScanResult selectiveScan(SelectiveScanArgs s, boolean returnLastState) {
        if (!selectiveFits(SELECTIVE, s)) return super.selectiveScan(s, returnLastState);
        io.backend().enter();
        int batch = s.batch(), channels = s.channels(), len = s.length(), n = s.states();
        Tensor out = io.empty(batch, channels, len), saved = io.empty(savedSize(s));
        Tensor last = returnLastState ? io.empty(batch, channels, n) : null;
        long checkpoints = checkpointSize(s);
        long savedBase = FusedOperands.address(saved);
        io.backend().kernels().launch(GROUP, "selective_scan_f32", grid(s), Dim3.of(WARPS * 32), 0, KernelArgs.of()
                .struct(problem(s), 8).pointer(FusedOperands.address(out)).pointer(savedBase)
                .pointer(s.z() == null ? 0 : savedBase + 4 * checkpoints).pointer(FusedOperands.address(last)));
        return new SelectiveScanResult(out, last, saved);
    }

    @Override
    public SelectiveScanGrads selectiveScanBackward(SelectiveScanArgs s, SelectiveScanResult forward, Tensor gradOut) {
        String op = SELECTIVE + " backward";
        if (!selectiveFits(op, s) || !FusedOperands.nonEmptyFloats(op, gradOut)) return super.selectiveScanBackward(s, forward, gradOut);
        Tensor saved = forward.saved();
        if (saved == null || saved.numel() != savedSize(s) || !saved.isContiguous()) {
            Fallbacks.record(op, "the forward's checkpoints are not this backend's");
            return super.selectiveScanBackward(s, forward, gradOut);
        }
        io.backend().enter();
        int batch = s.batch(), channels = s.channels(), len = s.length(), n = s.states();
        int[] bc = s.B().shape();
        Tensor du = io.empty(batch, channels, len), ddelta = io.empty(batch, channels, len);
        Tensor dz = s.z() == null ? null : io.empty(batch, channels, len);
        Tensor dh0 = s.initialState() == null ? null : io.empty(batch, channels, n);
        Tensor dB = zeros(bc), dC = zeros(bc);
        CudaStorage perItem = io.backend().empty(DType.FLOAT32, (long) batch * channels * (n + 2));
        long savedBase = FusedOperands.address(saved);
        try {
            io.backend().kernels().launch(GROUP, "selective_scan_backward_f32", grid(s), Dim3.of(WARPS * 32), 0, KernelArgs.of()
                    .struct(problem(s), 8).struct(op4(gradOut), 8).pointer(savedBase)
                    .pointer(s.z() == null ? 0 : savedBase + 4 * checkpointSize(s))
                    .pointer(FusedOperands.address(du)).pointer(FusedOperands.address(ddelta)).pointer(FusedOperands.address(dz))
                    .pointer(FusedOperands.address(dB)).pointer(FusedOperands.address(dC)).pointer(FusedOperands.address(dh0))
                    .pointer(perItem.address()));
            Tensor dA = io.empty(channels, n);
            Tensor dD = s.D() == null ? null : io.empty(channels), dBias = s.deltaBias() == null ? null : io.empty(channels);
            io.backend().kernels().launch(GROUP, "selective_scan_param_grads_f32", (long) channels * (n + 2), KernelArgs.of()
                    .pointer(perItem.address()).pointer(FusedOperands.address(dA)).pointer(FusedOperands.address(dD))
                    .pointer(FusedOperands.address(dBias)).i32(batch).i32(channels).i32(n));
            return new SelectiveScanGrads(du, ddelta, dA, dB, dC, dD, dz, dBias, dh0);
        } finally {
            perItem.release();
        }
    }

    // ---- launch shapes and operands ----------------------------------------------------------------

    /** A block of {@value #WARPS} channels' warps per (channel group, batch). */
    private static Dim3 grid(SelectiveScanArgs s) {
        return Dim3.of((s.channels() + WARPS - 1) / WARPS, s.batch());
    }

    private static int chunks(SelectiveScanArgs s) { return (s.length() + CHUNK - 1) / CHUNK; }

    /** Floats of the checkpoints, (batch, d_inner, chunks, N). */
    private static long checkpointSize(SelectiveScanArgs s) { return (long) s.batch() * s.channels() * chunks(s) * s.states(); }

    /** Floats the forward saves: the checkpoints, then y + D·u (batch, d_inner, L) when there is a gate. */
    private static int savedSize(SelectiveScanArgs s) {
        return Math.toIntExact(checkpointSize(s) + (s.z() == null ? 0 : s.u().numel()));
    }

    private Tensor zeros(int[] shape) {
        return Tensor.of(io.backend().allocate(DType.FLOAT32, Layout.numel(shape)), shape);
    }

    /** {@code struct Selective { long long batch, channels, len, n, groups, chunks, softplus; Op4 u, delta, A, B, C, D, z, bias, h0; }}. */
    private static byte[] problem(SelectiveScanArgs s) {
        ByteBuffer buf = ByteBuffer.allocate(7 * 8 + 9 * OP4_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(s.batch()).putLong(s.channels()).putLong(s.length()).putLong(s.states()).putLong(s.groups())
                .putLong(chunks(s)).putLong(s.deltaSoftplus() ? 1 : 0);
        for (Tensor t : new Tensor[] {s.u(), s.delta(), s.A(), s.B(), s.C(), s.D(), s.z(), s.deltaBias(), s.initialState()}) {
            buf.put(op4(t));
        }
        return buf.array();
    }

    /** t's first element and its strides (0 past its rank), or a null pointer. */
    private static byte[] op4(Tensor t) {
        ByteBuffer buf = ByteBuffer.allocate(OP4_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        if (t == null) return buf.array();
        Layout l = t.layout();
        buf.putLong(CudaBackend.storage(t.storage()).address(l.offset()));
        for (int i = 0; i < 4; i++) buf.putLong(i < l.rank() ? l.stride(i) : 0);
        return buf.array();
    }

    // ---- what the kernels take -------------------------------------------------------------------

    private static boolean linearFits(String op, Tensor a, Tensor... others) {
        if (!FusedOperands.nonEmptyFloats(op, a) || !FusedOperands.nonEmptyFloats(op, others)) return false;
        if (a.dim() <= Strided.MAX_RANK) return true;
        Fallbacks.record(op, "rank " + a.dim() + " is above the kernels' " + Strided.MAX_RANK);
        return false;
    }

    private static boolean selectiveFits(String op, SelectiveScanArgs s) {
        if (!FusedOperands.nonEmptyFloats(op, s.u(), s.delta(), s.A(), s.B(), s.C(), s.D(), s.z(), s.deltaBias(), s.initialState())) {
            return false;
        }
        String why = s.states() > MAX_STATES ? "N = " + s.states() + " is above the kernels' " + MAX_STATES
                : s.batch() > MAX_BATCH ? "batch " + s.batch() + " is above the grid's " + MAX_BATCH
                : checkpointSize(s) + s.u().numel() > Integer.MAX_VALUE ? "the checkpoints pass 2^31 floats" : null;
        if (why == null) return true;
        Fallbacks.record(op, why);
        return false;
    }

    @Override
    public String toString() { return "CudaScanKernels"; }
}
