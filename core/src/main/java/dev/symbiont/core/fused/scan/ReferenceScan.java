package dev.symbiont.core.fused.scan;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Creation;

import java.util.ArrayList;
import java.util.List;

/**
 * The scan family's reference, in the style of mamba's {@code selective_scan_ref}: the
 * discretised ΔA = exp(dt·A) and ΔB·u = dt·u·B are materialised as (batch, d_inner, L, N)
 * tensors, the recurrence walks L one step at a time with tensor ops, and the states are
 * stacked into another (batch, d_inner, L, N) tensor before C reads them. The backward
 * recomputes all of that and runs the reverse recurrence the same way. It runs on every
 * backend, with that backend's primitives, so forcing the family to its reference
 * ({@code -Dsymbiont.fused.scan=reference}) isolates the fused kernel.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 * Composed ops call their parts virtually: the selective scan and its backward call
 * {@link #linearScan} and {@link #linearScanBackward}.
 */
public class ReferenceScan implements ScanKernels {

    @Override
    public Tensor linearScan(Tensor a, Tensor b, Tensor h0, int dim) {
        int steps = a.size(dim);
        List<Tensor> states = new ArrayList<>(steps);
        Tensor h = h0;
        for (int t = 0; t < steps; t++) {
            Tensor bt = b.select(dim, t);
            h = h == null ? bt.contiguous() : a.select(dim, t).mul(h).add(bt);
            states.add(h);
        }
        return Tensor.stack(states, dim);
    }

    @Override
    public LinearScanGrads linearScanBackward(Tensor a, Tensor h, Tensor h0, Tensor gradH, int dim, Wanted want) {
        int steps = a.size(dim);
        Tensor[] gh = new Tensor[steps];
        for (int t = steps - 1; t >= 0; t--) {
            Tensor gt = gradH.select(dim, t);
            gh[t] = t == steps - 1 ? gt.contiguous() : a.select(dim, t + 1).mul(gh[t + 1]).add(gt);
        }
        Tensor db = Tensor.stack(List.of(gh), dim);
        // da_t = gh_t · h_{t−1}, with h_{−1} = h0 or 0; dh0 = a_0 · gh_0.
        Tensor first = h0 == null ? zeros(h, dim) : h0.unsqueeze(dim);
        Tensor previous = Tensor.cat(List.of(first, h.narrow(dim, 0, steps - 1)), dim);
        Tensor dh0 = want.dh0() && h0 != null ? a.select(dim, 0).mul(gh[0]) : null;
        return new LinearScanGrads(want.da() ? db.mul(previous) : null, want.db() ? db : null, dh0);
    }

    @Override
    public SelectiveScanResult selectiveScan(SelectiveScanArgs s, boolean returnLastState) {
        Discretised d = discretise(s);
        Tensor states = linearScan(d.decay, d.drive, s.initialState(), 2);  // h: (batch, d_inner, L, N)
        Tensor y = states.mul(perChannel(s.C(), s.channels())).sum(3, false);
        Tensor out = gate(s, y.add(skip(s)));
        Tensor last = returnLastState ? states.select(2, s.length() - 1).contiguous() : null;
        return new SelectiveScanResult(out, last, null);
    }

    @Override
    public SelectiveScanGrads selectiveScanBackward(SelectiveScanArgs s, SelectiveScanResult forward, Tensor gradOut) {
        int channels = s.channels();
        Discretised d = discretise(s);
        Tensor states = linearScan(d.decay, d.drive, s.initialState(), 2);
        Tensor cs = perChannel(s.C(), channels), bs = perChannel(s.B(), channels);
        Tensor y = states.mul(cs).sum(3, false);

        // out = (y + D·u)·silu(z): the gate first.
        Tensor gy = gradOut, dz = null;
        if (s.z() != null) {
            Tensor sig = s.z().sigmoid();
            Tensor siluGrad = sig.mul(s.z().mul(sig.neg().add(1)).add(1));  // σ(z)·(1 + z·(1 − σ(z)))
            dz = gradOut.mul(y.add(skip(s))).mul(siluGrad);
            gy = gradOut.mul(s.z().silu());
        }
        Tensor du = s.D() == null ? Tensor.zerosLike(s.u()) : gy.mul(column(s.D()));
        Tensor dD = s.D() == null ? null : gy.mul(s.u()).sum(new int[] {0, 2}, false);

        // y_l = Σ_n h_l·C_l
        Tensor gyN = gy.unsqueeze(3);
        Tensor dC = perGroup(gyN.mul(states), s.groups());
        LinearScanGrads g = linearScanBackward(d.decay, states, s.initialState(), gyN.mul(cs), 2,
                new Wanted(true, true, s.initialState() != null));

        // ΔA = exp(dt·A): d/d(dt·A) = ΔA
        Tensor dExponent = g.da().mul(d.decay);
        Tensor dA = dExponent.mul(d.dt.unsqueeze(3)).sum(new int[] {0, 2}, false);
        Tensor ddt = dExponent.mul(s.A().unsqueeze(1)).sum(3, false);
        // ΔB·u = dt·u·B
        Tensor driveB = g.db().mul(bs).sum(3, false);
        ddt = ddt.add(driveB.mul(s.u()));
        du = du.add(driveB.mul(d.dt));
        Tensor dB = perGroup(g.db().mul(d.dt.mul(s.u()).unsqueeze(3)), s.groups());

        Tensor ddelta = s.deltaSoftplus() ? ddt.mul(d.preSoftplus.sigmoid()) : ddt;
        Tensor dBias = s.deltaBias() == null ? null : ddelta.sum(new int[] {0, 2}, false);
        return new SelectiveScanGrads(du, ddelta, dA, dB, dC, dD, dz, dBias, g.dh0());
    }

    /** dt (batch, d_inner, L) before and after softplus, ΔA and ΔB·u (batch, d_inner, L, N). */
    private record Discretised(Tensor preSoftplus, Tensor dt, Tensor decay, Tensor drive) {}

    private static Discretised discretise(SelectiveScanArgs s) {
        Tensor pre = s.deltaBias() == null ? s.delta() : s.delta().add(column(s.deltaBias()));
        Tensor dt = s.deltaSoftplus() ? pre.softplus() : pre;
        Tensor decay = dt.unsqueeze(3).mul(s.A().unsqueeze(1)).exp();                   // ΔA = exp(dt·A)
        Tensor drive = dt.mul(s.u()).unsqueeze(3).mul(perChannel(s.B(), s.channels()));   // ΔB·u = dt·u·B
        return new Discretised(pre, dt, decay, drive);
    }

    /** y + D·u's second term (or 0 without D): (batch, d_inner, L). */
    private static Tensor skip(SelectiveScanArgs s) {
        return s.D() == null ? Tensor.zerosLike(s.u()) : s.u().mul(column(s.D()));
    }

    private static Tensor gate(SelectiveScanArgs s, Tensor x) {
        return s.z() == null ? x : x.mul(s.z().silu());
    }

    /** A (d_inner) vector as (d_inner, 1), broadcasting over L. */
    private static Tensor column(Tensor v) { return v.reshape(v.size(0), 1); }

    /** B or C (batch, G, N, L) as each channel reads it: (batch, d_inner, L, N), a view. */
    private static Tensor perChannel(Tensor bc, int channels) {
        int batch = bc.size(0), groups = bc.size(1), n = bc.size(2), len = bc.size(3);
        return bc.transpose(2, 3).unsqueeze(2).expand(batch, groups, channels / groups, len, n)
                .reshape(batch, channels, len, n);
    }

    /** The reverse of {@link #perChannel}: sums a (batch, d_inner, L, N) gradient over each group's channels. */
    private static Tensor perGroup(Tensor perChannel, int groups) {
        int batch = perChannel.size(0), channels = perChannel.size(1), len = perChannel.size(2), n = perChannel.size(3);
        return perChannel.reshape(batch, groups, channels / groups, len, n).sum(2, false).transpose(2, 3).contiguous();
    }

    /** Zeros shaped like one step of {@code h} along {@code dim}, keeping the dim (size 1). */
    private static Tensor zeros(Tensor h, int dim) {
        int[] shape = h.shape().clone();
        shape[dim] = 1;
        return Creation.full(h.backend(), 0, DType.FLOAT32, shape);
    }

    @Override
    public String toString() { return "ReferenceScan"; }
}
