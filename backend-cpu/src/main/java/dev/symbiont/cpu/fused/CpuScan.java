package dev.symbiont.cpu.fused;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.cpu.kernels.LinearRecurrence;
import dev.symbiont.cpu.kernels.ScanMath;
import dev.symbiont.cpu.kernels.SelectiveScan;

/**
 * The scan family on the CPU: the linear recurrence walked once per column, or chunked when
 * too few columns fill the cores, its backward one reverse pass writing only the gradients
 * wanted ({@link LinearRecurrence}); the selective scan fused into one
 * pass over L per (batch, channel) with per-chunk checkpoints for the backward
 * ({@link SelectiveScan}), so neither direction allocates anything of size L·N. Operands are
 * read in place through their strides; only a linear scan's non-contiguous operands are
 * copied, and the selective scan's B and C into step-major rows. Both scans' inner loops run on
 * the Vector API (the linear scan's across a row of channels, the selective scan's across the N
 * states) when the backend's vector kernels are on, else on their plain-Java twins.
 */
public final class CpuScan implements ScanKernels {
    private static final String LINEAR = "linear_scan";
    private static final String SELECTIVE = "selective_scan";
    private final CpuTensors io;
    private final ScanMath math;

    /** @param vector whether the scans' inner loops run on the Vector API (else the scalar twins) */
    public CpuScan(Backend backend, boolean vector) {
        this.io = new CpuTensors(backend);
        this.math = ScanMath.of(vector);
    }

    @Override
    public Tensor linearScan(Tensor a, Tensor b, Tensor h0, int dim) {
        LinearRecurrence.Dims d = dims(a, dim);
        HeapStorage h = io.emptyFloats(a.numel()); // the recurrence writes every h_t
        LinearRecurrence.scan(math, d, run(LINEAR, a), run(LINEAR, b), h0 == null ? null : run(LINEAR, h0), h.floats());
        return Tensor.of(h, a.shape());
    }

    @Override
    public LinearScanGrads linearScanBackward(Tensor a, Tensor h, Tensor h0, Tensor gradH, int dim, Wanted want) {
        String op = LINEAR + " backward";
        // the adjoint pass writes every element of each gradient it is given
        HeapStorage da = want.da() ? io.emptyFloats(a.numel()) : null, db = want.db() ? io.emptyFloats(a.numel()) : null;
        HeapStorage dh0 = want.dh0() && h0 != null ? io.emptyFloats(h0.numel()) : null;
        LinearRecurrence.adjoint(math, dims(a, dim), run(op, a), run(op, gradH), run(op, h), h0 == null ? null : run(op, h0),
                data(da), data(db), data(dh0));
        return new LinearScanGrads(da == null ? null : Tensor.of(da, a.shape()), db == null ? null : Tensor.of(db, a.shape()),
                dh0 == null ? null : Tensor.of(dh0, h0.shape()));
    }

    @Override
    public SelectiveScanResult selectiveScan(SelectiveScanArgs s, boolean returnLastState) {
        SelectiveScan.Problem p = problem(SELECTIVE, s);
        HeapStorage out = io.newFloats(s.u().numel());
        HeapStorage checkpoints = io.newFloats(p.checkpointSize());
        HeapStorage last = returnLastState ? io.newFloats(p.batch() * p.channels() * p.n()) : null;
        SelectiveScan.forward(p, out.floats(), checkpoints.floats(), last == null ? null : last.floats());
        return new SelectiveScanResult(Tensor.of(out, s.u().shape()),
                last == null ? null : Tensor.of(last, p.batch(), p.channels(), p.n()),
                Tensor.of(checkpoints, p.batch(), p.channels(), p.chunks(), p.width()));
    }

    @Override
    public SelectiveScanGrads selectiveScanBackward(SelectiveScanArgs s, SelectiveScanResult forward, Tensor gradOut) {
        String op = SELECTIVE + " backward";
        SelectiveScan.Problem p = problem(op, s);
        int perBC = s.B().numel(), items = p.batch() * p.channels();
        HeapStorage du = io.newFloats(s.u().numel()), ddelta = io.newFloats(s.u().numel()), dA = io.newFloats(s.A().numel());
        HeapStorage dB = io.newFloats(perBC), dC = io.newFloats(perBC);
        HeapStorage dD = s.D() == null ? null : io.newFloats(p.channels());
        HeapStorage dz = s.z() == null ? null : io.newFloats(s.u().numel());
        HeapStorage dBias = s.deltaBias() == null ? null : io.newFloats(p.channels());
        HeapStorage dh0 = s.initialState() == null ? null : io.newFloats(s.initialState().numel());
        HeapStorage partB = io.newFloats(SelectiveScan.partialSize(p)), partC = io.newFloats(SelectiveScan.partialSize(p));
        HeapStorage perItem = io.newFloats(items * (p.n() + 2));
        SelectiveScan.backward(p, strided(op, gradOut), floats(op, forward.saved()), partB.floats(), partC.floats(),
                perItem.floats(), new SelectiveScan.Grads(du.floats(), ddelta.floats(), dA.floats(), dB.floats(),
                        dC.floats(), data(dD), data(dz), data(dBias), data(dh0)));
        partB.release();
        partC.release();
        perItem.release();
        return new SelectiveScanGrads(Tensor.of(du, s.u().shape()), Tensor.of(ddelta, s.u().shape()),
                Tensor.of(dA, s.A().shape()), Tensor.of(dB, s.B().shape()), Tensor.of(dC, s.C().shape()),
                dD == null ? null : Tensor.of(dD, p.channels()), dz == null ? null : Tensor.of(dz, s.u().shape()),
                dBias == null ? null : Tensor.of(dBias, p.channels()),
                dh0 == null ? null : Tensor.of(dh0, s.initialState().shape()));
    }

    private SelectiveScan.Problem problem(String op, SelectiveScanArgs s) {
        return new SelectiveScan.Problem(s.batch(), s.channels(), s.length(), s.states(), s.groups(),
                strided(op, s.u()), strided(op, s.delta()), strided(op, s.A()), strided(op, s.B()), strided(op, s.C()),
                strided(op, s.D()), strided(op, s.z()), strided(op, s.deltaBias()), strided(op, s.initialState()),
                s.deltaSoftplus(), math);
    }

    /** (outer, len, inner) around {@code dim} of a's shape. */
    private static LinearRecurrence.Dims dims(Tensor a, int dim) {
        int outer = 1, inner = 1;
        for (int i = 0; i < dim; i++) outer *= a.size(i);
        for (int i = dim + 1; i < a.dim(); i++) inner *= a.size(i);
        return new LinearRecurrence.Dims(outer, a.size(dim), inner, false);
    }

    /** A contiguous run of t's elements: its own storage when contiguous, else a row-major host copy. */
    private LinearRecurrence.Run run(String op, Tensor t) {
        float[] data = HeapStorage.floats(op, t.storage(), t.layout());
        return t.isContiguous() ? new LinearRecurrence.Run(data, t.layout().offset()) : new LinearRecurrence.Run(io.copyOf(t), 0);
    }

    /** An operand of rank ≤ 4 read in place through its strides, or null. */
    private static SelectiveScan.Strided strided(String op, Tensor t) {
        if (t == null) return null;
        Layout l = t.layout();
        float[] data = HeapStorage.floats(op, t.storage(), l);
        int[] s = new int[4];
        for (int i = 0; i < l.rank(); i++) s[i] = l.size(i) == 1 ? 0 : l.stride(i);
        return new SelectiveScan.Strided(data, l.offset(), s[0], s[1], s[2], s[3]);
    }

    private static float[] floats(String op, Tensor t) {
        float[] data = HeapStorage.floats(op, t.storage(), t.layout());
        if (!t.isContiguous() || t.layout().offset() != 0) throw new IllegalArgumentException(op + ": checkpoints are not the forward's");
        return data;
    }

    private static float[] data(HeapStorage s) { return s == null ? null : s.floats(); }

    @Override
    public String toString() { return "CpuScan(" + math + ")"; }
}
