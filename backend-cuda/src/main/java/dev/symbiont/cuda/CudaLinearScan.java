package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.scan.ScanKernels.LinearScanGrads;
import dev.symbiont.core.fused.scan.ScanKernels.Wanted;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The linear scan h_t = a_t·h_{t−1} + b_t and its backward on {@code scan.cu}, float32 operands of
 * any layout read through their strides, every sequence (the product of the dims other than
 * {@code dim}) scanned in chunks of {@value #CHUNK} steps. Two variants compute the same thing:
 * <ul>
 *   <li>{@link Variant#BLOCK}: a block per sequence walks its chunks one after the other (the
 *       structure of mamba-ssm's kernel), one launch;</li>
 *   <li>{@link Variant#GRID}: a block per (sequence, chunk) in three launches — the chunks' composed
 *       steps, a scan of those per sequence, the chunks rescanned from their incoming states — so a
 *       few long sequences still fill the device, for two more global synchronisations and a
 *       second read of a and b.</li>
 * </ul>
 * {@link Variant#AUTO} takes the grid-wide variant when there are at most
 * {@value #GRID_MAX_SEQUENCES} sequences of at least {@value #GRID_MIN_LENGTH} steps (a block
 * per sequence would leave most of a 100-SM device idle for ≥ 4 chunks), the block-local one
 * otherwise. {@code -Dsymbiont.cuda.linearScan=auto|block|grid} forces one, read at every call.
 */
final class CudaLinearScan {
    static final String PROPERTY = "symbiont.cuda.linearScan";
    static final int THREADS = 128, CHUNK = 512;
    static final int GRID_MAX_SEQUENCES = 32, GRID_MIN_LENGTH = 4 * CHUNK;
    private static final String GROUP = "scan";
    /** {@code struct Operand { float* p; Strided s; }}: 152 bytes. */
    private static final int OPERAND_BYTES = 8 + Strided.BYTES;

    /** Which kernels run a linear scan. */
    enum Variant { AUTO, BLOCK, GRID }

    private final FusedOperands io;

    CudaLinearScan(CudaBackend backend) { this.io = new FusedOperands(backend); }

    /** The variant {@code -Dsymbiont.cuda.linearScan} names, {@link Variant#AUTO} when unset. */
    static Variant configured() { return PropertyChoice.read(PROPERTY, Variant.AUTO); }

    /** The variant that runs {@code sequences} sequences of {@code len} steps under {@code choice}. */
    static Variant choose(Variant choice, long sequences, int len) {
        if (sequences * chunks(len) > Integer.MAX_VALUE) return Variant.BLOCK;   // the grid's blocks are one dim
        if (choice != Variant.AUTO) return choice;
        return sequences <= GRID_MAX_SEQUENCES && len >= GRID_MIN_LENGTH ? Variant.GRID : Variant.BLOCK;
    }

    /** h (a's shape, contiguous) of a, b (any layouts of one shape) from h0 (a's shape without dim) or 0. */
    Tensor forward(Tensor a, Tensor b, Tensor h0, int dim) {
        io.backend().enter();
        Tensor h = io.empty(a.shape());
        byte[] args = problem(a, dim, false, operand(a, a, dim), operand(b, a, dim), absent(), operand(h0, a, dim),
                operand(h, a, dim), absent(), absent());
        run(args, a.numel() / a.size(dim), a.size(dim));
        return h;
    }

    /** The contract's backward: db, da and dh0 where wanted (and h0 given, for dh0), else null. */
    LinearScanGrads backward(Tensor a, Tensor h, Tensor h0, Tensor gradH, int dim, Wanted want) {
        io.backend().enter();
        Tensor db = want.db() ? io.empty(a.shape()) : null, da = want.da() ? io.empty(a.shape()) : null;
        Tensor dh0 = want.dh0() && h0 != null ? io.empty(h0.shape()) : null;
        byte[] args = problem(a, dim, true, operand(a, a, dim), operand(gradH, a, dim), operand(h, a, dim),
                operand(h0, a, dim), operand(db, a, dim), operand(da, a, dim), operand(dh0, a, dim));
        run(args, a.numel() / a.size(dim), a.size(dim));
        return new LinearScanGrads(da, db, dh0);
    }

    private void run(byte[] problem, long sequences, int len) {
        Kernels k = io.backend().kernels();
        Dim3 threads = Dim3.of(THREADS);
        if (choose(configured(), sequences, len) == Variant.BLOCK) {
            k.launch(GROUP, "linear_scan_f32", Dim3.of((int) sequences), threads, 0, args(problem));
            return;
        }
        long chunks = chunks(len), blocks = sequences * chunks;
        CudaStorage totals = io.backend().empty(DType.FLOAT32, 2 * blocks), states = io.backend().empty(DType.FLOAT32, blocks);
        try {
            k.launch(GROUP, "linear_scan_totals_f32", Dim3.of((int) blocks), threads, 0,
                    args(problem).pointer(totals.address()).i64(chunks));
            k.launch(GROUP, "linear_scan_carries_f32", Dim3.of((int) sequences), threads, 0,
                    args(problem).pointer(totals.address()).pointer(states.address()).i64(chunks));
            k.launch(GROUP, "linear_scan_fixup_f32", Dim3.of((int) blocks), threads, 0,
                    args(problem).pointer(states.address()).i64(chunks));
        } finally {
            totals.release();
            states.release();
        }
    }

    private static long chunks(int len) { return (len + CHUNK - 1) / CHUNK; }

    private static KernelArgs args(byte[] problem) { return KernelArgs.of().struct(problem, 8); }

    /** {@code struct LinearScan { Operand a, x, h, h0, out, da, dh0; long long len, seqs; int dim, backward; }}. */
    private static byte[] problem(Tensor a, int dim, boolean backward, byte[]... operands) {
        ByteBuffer buf = ByteBuffer.allocate(operands.length * OPERAND_BYTES + 24).order(ByteOrder.LITTLE_ENDIAN);
        for (byte[] o : operands) buf.put(o);
        return buf.putLong(a.size(dim)).putLong(a.numel() / a.size(dim)).putInt(dim).putInt(backward ? 1 : 0).array();
    }

    /**
     * {@code t} as an operand of a's rank: t itself when it has a's shape, or a's shape without
     * {@code dim} (an initial state or its gradient) seen with stride 0 along dim.
     */
    private static byte[] operand(Tensor t, Tensor a, int dim) {
        if (t == null) return absent();
        Layout l = t.layout();
        int[] strides = l.strides();
        if (t.dim() != a.dim()) {
            strides = new int[a.dim()];
            for (int i = 0, j = 0; i < a.dim(); i++) strides[i] = i == dim ? 0 : l.stride(j++);
        }
        ByteBuffer buf = ByteBuffer.allocate(OPERAND_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(CudaBackend.storage(t.storage()).address());
        buf.put(Strided.of("linear_scan", a.shape(), strides, l.offset()));
        return buf.array();
    }

    /** An absent operand: a null pointer. */
    private static byte[] absent() { return new byte[OPERAND_BYTES]; }
}
