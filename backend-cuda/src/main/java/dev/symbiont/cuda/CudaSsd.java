package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.scan.ScanKernels.SsdArgs;
import dev.symbiont.core.fused.scan.ScanKernels.SsdGrads;
import dev.symbiont.core.fused.scan.ScanKernels.SsdResult;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Mamba-2's chunked SSD on {@code ssd.cu} (forward) and {@code ssd_backward.cu}, in mamba-ssm's
 * stages: the chunk cumsum of Δ·A, C·Bᵀ per chunk, each chunk's state, the state passing between
 * chunks, and the chunk scan (y from within the chunk and from the state entering it). Operands
 * are read contiguous (a strided one is copied first). The forward keeps for the backward, in
 * {@link SsdResult#saved}, one flat float32 tensor: the cumsum (batch, chunks, heads, Q) and the
 * states entering every chunk (batch, chunks, heads, P, N); the backward recomputes C·Bᵀ and gy·xᵀ
 * per chunk. Every gradient is summed in a fixed order (no atomics): dB and dC are written per
 * head and summed over each group's heads, dA and dD per (batch, chunk or position) and summed by
 * a block per head.
 *
 * <p>A chunk above {@value #MAX_CHUNK} positions, or sizes past the grid's {@value #MAX_GRID}
 * blocks a dimension or 2^31 floats a buffer, return null: the caller runs the reference,
 * counted by {@link Fallbacks}.
 */
final class CudaSsd {
    static final int TILE = 16, MAX_CHUNK = 256, MAX_GRID = 65_535, WARPS = 4, BLOCK = 256;
    private static final String OP = "ssd_chunked", FORWARD = "ssd", BACKWARD = "ssd_backward";

    private final FusedOperands io;

    CudaSsd(CudaBackend backend) { this.io = new FusedOperands(backend); }

    /** y, the final state and the checkpoints, or null when the kernels do not take {@code s} (a recorded fallback). */
    SsdResult forward(SsdArgs s) {
        if (!fits(OP, s)) return null;
        Sizes z = new Sizes(s);
        Dense in = new Dense(s);
        io.backend().enter();
        Tensor y = io.empty(z.batch, z.len, z.heads, z.p), last = io.empty(z.batch, z.heads, z.p, z.n);
        Tensor saved = io.empty(Math.toIntExact(z.cum() + z.states()));
        long cum = FusedOperands.address(saved), entering = cum + 4 * z.cum();
        CudaStorage cb = scratch(z.cb()), states = scratch(z.states());
        try {
            kernels().launch(FORWARD, "ssd_cumsum_f32", (long) z.batch * z.chunks * z.heads, KernelArgs.of()
                    .struct(z.dims(), 4).pointer(in.dt).pointer(in.a).pointer(cum));
            bmm(z, in.c, in.b, z.groups, z.n, cb.address());
            chunkState(z, in.x, in.b, in.dt, cum, false, states.address());
            kernels().launch(FORWARD, "ssd_state_passing_f32", (long) z.batch * z.heads * z.p * z.n, KernelArgs.of()
                    .struct(z.dims(), 4).pointer(states.address()).pointer(cum).pointer(in.h0).pointer(entering)
                    .pointer(FusedOperands.address(last)));
            kernels().launch(FORWARD, "ssd_chunk_scan_f32", grid(z, tiles(z.q) * tiles(z.p), z.heads), tile(), 0, KernelArgs.of()
                    .struct(z.dims(), 4).pointer(in.x).pointer(in.dt).pointer(cum).pointer(cb.address()).pointer(in.c)
                    .pointer(entering).pointer(in.d).pointer(FusedOperands.address(y)));
        } finally {
            cb.release();
            states.release();
        }
        return new SsdResult(y, last, saved);
    }

    /** Every gradient, or null when the kernels do not take {@code s} or the forward was not theirs (a recorded fallback). */
    SsdGrads backward(SsdArgs s, SsdResult forward, Tensor gradY, Tensor gradFinal) {
        String op = OP + " backward";
        if (!fits(op, s) || !FusedOperands.nonEmptyFloats(op, gradY, gradFinal)) return null;
        Sizes z = new Sizes(s);
        Tensor saved = forward.saved();
        if (saved == null || saved.numel() != z.cum() + z.states() || !saved.isContiguous()) {
            Fallbacks.record(op, "the forward's checkpoints are not this backend's");
            return null;
        }
        Dense in = new Dense(s);
        io.backend().enter();
        long cum = FusedOperands.address(saved), entering = cum + 4 * z.cum();
        // Only the final state's gradient: y's is zeros.
        CudaStorage gyZeros = gradY == null ? io.backend().allocate(DType.FLOAT32, s.x().numel()) : null;
        Tensor gradYDense = FusedOperands.dense(gradY), gradFinalDense = FusedOperands.dense(gradFinal);
        long gy = gyZeros != null ? gyZeros.address() : FusedOperands.address(gradYDense);
        long gFinal = FusedOperands.address(gradFinalDense);
        Tensor dx = io.empty(s.x().shape()), ddt = io.empty(s.dt().shape()), dA = io.empty(z.heads);
        Tensor dD = s.D() == null ? null : io.empty(z.heads);
        Tensor dh0 = s.initialState() == null ? null : io.empty(z.batch, z.heads, z.p, z.n);
        Tensor dB = io.empty(s.B().shape()), dC = io.empty(s.C().shape());
        boolean grouped = z.groups != z.heads;
        long positions = (long) z.batch * z.len * z.heads, chunkHeads = (long) z.batch * z.chunks * z.heads;
        CudaStorage cb = scratch(z.cb()), gx = scratch(z.gx()), fromC = scratch(z.states()), dOut = scratch(z.states());
        CudaStorage perChunk = scratch(2 * chunkHeads), perPosition = scratch(3 * positions);
        CudaStorage perHead = grouped ? scratch(2 * positions * z.n) : null;
        long dTotal = perChunk.address(), dAPart = dTotal + 4 * chunkHeads;
        long offDot = perPosition.address(), stateDot = offDot + 4 * positions, dDPart = stateDot + 4 * positions;
        long dBh = grouped ? perHead.address() : FusedOperands.address(dB);
        long dCh = grouped ? perHead.address() + 4 * positions * z.n : FusedOperands.address(dC);
        try {
            bmm(z, in.c, in.b, z.groups, z.n, cb.address());
            bmm(z, gy, in.x, z.heads, z.p, gx.address());
            chunkState(z, gy, in.c, in.dt, cum, true, fromC.address());
            kernels().launch(BACKWARD, "ssd_state_passing_backward_f32", Dim3.of(z.batch * z.heads), Dim3.of(BLOCK), 0, KernelArgs.of()
                    .struct(z.dims(), 4).pointer(fromC.address()).pointer(cum).pointer(entering).pointer(gFinal)
                    .pointer(dOut.address()).pointer(dTotal).pointer(FusedOperands.address(dh0)));
            Dim3 warps = Dim3.of(Math.toIntExact((positions + WARPS - 1) / WARPS));
            kernels().launch(BACKWARD, "ssd_dx_f32", warps, Dim3.of(32 * WARPS), 0, KernelArgs.of()
                    .struct(z.dims(), 4).pointer(in.x).pointer(in.dt).pointer(in.b).pointer(in.d).pointer(gy).pointer(cum)
                    .pointer(cb.address()).pointer(dOut.address()).pointer(FusedOperands.address(dx))
                    .pointer(FusedOperands.address(ddt)).pointer(dDPart));
            kernels().launch(BACKWARD, "ssd_dbc_f32", warps, Dim3.of(32 * WARPS), 0, KernelArgs.of()
                    .struct(z.dims(), 4).pointer(in.x).pointer(in.dt).pointer(in.b).pointer(in.c).pointer(gy).pointer(cum)
                    .pointer(gx.address()).pointer(entering).pointer(dOut.address()).pointer(dBh).pointer(dCh)
                    .pointer(offDot).pointer(stateDot));
            kernels().launch(BACKWARD, "ssd_dcum_f32", Dim3.of(Math.toIntExact(chunkHeads)), Dim3.of(128), 0, KernelArgs.of()
                    .struct(z.dims(), 4).pointer(in.dt).pointer(in.a).pointer(cum).pointer(cb.address()).pointer(gx.address())
                    .pointer(offDot).pointer(stateDot).pointer(dTotal).pointer(FusedOperands.address(ddt)).pointer(dAPart));
            headSum(dAPart, (long) z.batch * z.chunks, z.heads, dA);
            if (dD != null) headSum(dDPart, (long) z.batch * z.len, z.heads, dD);
            if (grouped) {
                for (long[] pair : new long[][] {{dBh, FusedOperands.address(dB)}, {dCh, FusedOperands.address(dC)}}) {
                    kernels().launch(BACKWARD, "ssd_group_sum_f32", (long) z.batch * z.len * z.groups * z.n, KernelArgs.of()
                            .struct(z.dims(), 4).pointer(pair[0]).pointer(pair[1]));
                }
            }
        } finally {
            for (CudaStorage t : new CudaStorage[] {cb, gx, fromC, dOut, perChunk, perPosition, perHead, gyZeros}) {
                if (t != null) t.release();
            }
        }
        return new SsdGrads(dx, ddt, dA, dB, dC, dD, dh0);
    }

    // ---- the shared stages -----------------------------------------------------------------------

    /** out (batch, chunks, width, Q, Q) = U_l · V_s within each chunk; U, V (batch, L, width, inner). */
    private void bmm(Sizes z, long u, long v, int width, int inner, long out) {
        kernels().launch(FORWARD, "ssd_bmm_f32", grid(z, tiles(z.q) * tiles(z.q), width), tile(), 0, KernelArgs.of()
                .struct(z.dims(), 4).pointer(u).pointer(v).i32(width).i32(inner).pointer(out));
    }

    /** out (batch, chunks, heads, P, N) = Σ_l w_l·U_l V_lᵀ per chunk, w_l = exp(cum_end − cum_l)·Δ_l or exp(cum_l). */
    private void chunkState(Sizes z, long u, long v, long dt, long cum, boolean fromStart, long out) {
        kernels().launch(FORWARD, "ssd_chunk_state_f32", grid(z, tiles(z.p) * tiles(z.n), z.heads), tile(), 0, KernelArgs.of()
                .struct(z.dims(), 4).pointer(u).pointer(v).pointer(dt).pointer(cum).i32(fromStart ? 1 : 0).pointer(out));
    }

    private void headSum(long parts, long rows, int heads, Tensor out) {
        kernels().launch(BACKWARD, "ssd_head_sum_f32", Dim3.of(heads), Dim3.of(BLOCK), 0, KernelArgs.of()
                .pointer(parts).i64(rows).i32(heads).pointer(FusedOperands.address(out)));
    }

    private Kernels kernels() { return io.backend().kernels(); }

    private CudaStorage scratch(long floats) { return io.backend().empty(DType.FLOAT32, floats); }

    private static int tiles(int size) { return (size + TILE - 1) / TILE; }

    private static Dim3 tile() { return Dim3.of(TILE, TILE); }

    /** Tiles × chunks × (batch · per), the grid of the tiled stages. */
    private static Dim3 grid(Sizes z, int tiles, int per) { return new Dim3(tiles, z.chunks, z.batch * per); }

    // ---- operands and sizes ----------------------------------------------------------------------

    /** The operands' device addresses, each contiguous (0 for an absent one); it holds the copies of strided ones. */
    private static final class Dense {
        final Tensor[] held;
        final long x, dt, a, b, c, d, h0;

        Dense(SsdArgs s) {
            held = new Tensor[] {s.x(), s.dt(), s.A(), s.B(), s.C(), s.D(), s.initialState()};
            long[] at = new long[held.length];
            for (int i = 0; i < held.length; i++) {
                held[i] = FusedOperands.dense(held[i]);
                at[i] = FusedOperands.address(held[i]);
            }
            x = at[0]; dt = at[1]; a = at[2]; b = at[3]; c = at[4]; d = at[5]; h0 = at[6];
        }
    }

    /** The problem's sizes, and {@code struct SsdDims { int batch, len, heads, p, groups, n, q, chunks; }}. */
    private static final class Sizes {
        final int batch, len, heads, p, groups, n, q, chunks;

        Sizes(SsdArgs s) {
            batch = s.batch();
            len = s.length();
            heads = s.heads();
            p = s.headDim();
            groups = s.groups();
            n = s.states();
            q = s.chunkLength();
            chunks = s.chunks();
        }

        long cum() { return (long) batch * chunks * heads * q; }
        long states() { return (long) batch * chunks * heads * p * n; }
        long cb() { return (long) batch * chunks * groups * q * q; }
        long gx() { return (long) batch * chunks * heads * q * q; }

        byte[] dims() {
            ByteBuffer buf = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
            for (int v : new int[] {batch, len, heads, p, groups, n, q, chunks}) buf.putInt(v);
            return buf.array();
        }
    }

    private static boolean fits(String op, SsdArgs s) {
        if (!FusedOperands.nonEmptyFloats(op, s.x(), s.dt(), s.A(), s.B(), s.C(), s.D(), s.initialState())) return false;
        Sizes z = new Sizes(s);
        long positions = (long) z.batch * z.len * z.heads;
        String why = z.q > MAX_CHUNK ? "the chunk of " + z.q + " positions is above the kernels' " + MAX_CHUNK
                : z.chunks > MAX_GRID || (long) z.batch * z.heads > MAX_GRID
                        ? "batch " + z.batch + " × heads " + z.heads + " or " + z.chunks + " chunks pass the grid's " + MAX_GRID
                : Math.max(Math.max(z.gx(), z.cum() + z.states()), 2 * positions * z.n) > Integer.MAX_VALUE
                        ? "a buffer passes 2^31 floats" : null;
        if (why == null) return true;
        Fallbacks.record(op, why);
        return false;
    }
}
