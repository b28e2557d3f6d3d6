package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * Optimizer steps in one pass over parameter, gradient and state: each element is read once
 * and its new parameter and state written once, instead of the ten or so full passes (each
 * allocating) of the tensor-op formulas. The arithmetic is that of the reference, op for op
 * in float32 with no fused multiply-add, so the results are the same bits; the scalar tail
 * runs the same operations. Work above {@link Parallel#ELEMENT_GRAIN} elements is split over
 * the pool. Parameters are updated in place; a null state reads as zeros (first step).
 */
public final class VectorOptim {
    private VectorOptim() {}

    /** Adam's step constants, each rounded to float32 as the reference's scalars are. */
    public record Adam(float decay, float l2, float oneMinusBeta1, float beta2, float oneMinusBeta2,
                       float bias2Sqrt, float eps, float stepSize, boolean decoupled, boolean weightDecay) {}

    /**
     * p ← Adam step; mOut/vOut ← the new moments. m and v may be null on the first step (then
     * mOut and vOut, fresh zeros, are read in their place).
     */
    public static void adam(float[] p, int pOff, float[] g, int gOff, float[] m, int mOff, float[] v, int vOff,
                            float[] mOut, float[] vOut, int n, Adam c) {
        float[] ms = m == null ? mOut : m, vs = v == null ? vOut : v;
        int mo = m == null ? 0 : mOff, vo = v == null ? 0 : vOff;
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int i = from, bound = from + S.loopBound(to - from);
            for (; i < bound; i += S.length()) {
                FloatVector pv = FloatVector.fromArray(S, p, pOff + i), gv = FloatVector.fromArray(S, g, gOff + i);
                if (c.weightDecay()) {
                    if (c.decoupled()) pv = pv.mul(c.decay());
                    else gv = gv.add(pv.mul(c.l2()));
                }
                FloatVector mv = FloatVector.fromArray(S, ms, mo + i), vv = FloatVector.fromArray(S, vs, vo + i);
                mv = mv.add(gv.sub(mv).mul(c.oneMinusBeta1()));
                vv = vv.mul(c.beta2()).add(gv.mul(c.oneMinusBeta2()).mul(gv));
                FloatVector denom = vv.sqrt().div(c.bias2Sqrt()).add(c.eps());
                pv.sub(mv.div(denom).mul(c.stepSize())).intoArray(p, pOff + i);
                mv.intoArray(mOut, i);
                vv.intoArray(vOut, i);
            }
            for (; i < to; i++) {
                float pi = p[pOff + i], gi = g[gOff + i];
                if (c.weightDecay()) {
                    if (c.decoupled()) pi = pi * c.decay();
                    else gi = gi + pi * c.l2();
                }
                float mi = ms[mo + i], vi = vs[vo + i];
                mi = mi + (gi - mi) * c.oneMinusBeta1();
                vi = vi * c.beta2() + gi * c.oneMinusBeta2() * gi;
                float denom = (float) Math.sqrt(vi) / c.bias2Sqrt() + c.eps();
                p[pOff + i] = pi - mi / denom * c.stepSize();
                mOut[i] = mi;
                vOut[i] = vi;
            }
        });
    }

    /** SGD's momentum step constants, rounded to float32. */
    public record Sgd(float lr, float momentum, float oneMinusDampening, float l2,
                      boolean dampened, boolean nesterov, boolean weightDecay) {}

    /** p ← SGD step; bufOut ← the new momentum buffer (buf null on the first step: the buffer starts at the gradient). */
    public static void sgdMomentum(float[] p, int pOff, float[] g, int gOff, float[] buf, int bufOff,
                                   float[] bufOut, int n, Sgd c) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int i = from, bound = from + S.loopBound(to - from);
            for (; i < bound; i += S.length()) {
                FloatVector pv = FloatVector.fromArray(S, p, pOff + i), gv = FloatVector.fromArray(S, g, gOff + i);
                if (c.weightDecay()) gv = gv.add(pv.mul(c.l2()));
                FloatVector b = gv;
                if (buf != null) b = FloatVector.fromArray(S, buf, bufOff + i).mul(c.momentum()).add(c.dampened() ? gv.mul(c.oneMinusDampening()) : gv);
                FloatVector step = c.nesterov() ? gv.add(b.mul(c.momentum())) : b;
                pv.sub(step.mul(c.lr())).intoArray(p, pOff + i);
                b.intoArray(bufOut, i);
            }
            for (; i < to; i++) {
                float pi = p[pOff + i], gi = g[gOff + i];
                if (c.weightDecay()) gi = gi + pi * c.l2();
                float b = buf == null ? gi : buf[bufOff + i] * c.momentum() + (c.dampened() ? gi * c.oneMinusDampening() : gi);
                float step = c.nesterov() ? gi + b * c.momentum() : b;
                p[pOff + i] = pi - step * c.lr();
                bufOut[i] = b;
            }
        });
    }
}
