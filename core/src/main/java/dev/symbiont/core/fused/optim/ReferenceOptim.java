package dev.symbiont.core.fused.optim;

import dev.symbiont.core.Tensor;

/**
 * The optimizer steps written with tensor ops, as torch.optim's single-tensor implementations
 * compute them (scalars enter as float32, the bias corrections in double). The new parameter
 * is computed as a tensor and copied into {@code param}.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 */
public class ReferenceOptim implements OptimKernels {

    @Override
    public AdamState adamStep(Tensor param, Tensor grad, Tensor expAvg, Tensor expAvgSq, AdamHyper h) {
        double lr = h.lr(), wd = h.weightDecay();
        Tensor p = param, g = grad;
        if (wd != 0) {
            if (h.decoupled()) p = p.mul(1 - lr * wd);
            else g = g.add(p.mul(wd));
        }
        Tensor m = expAvg == null ? Tensor.zerosLike(param) : expAvg;
        Tensor v = expAvgSq == null ? Tensor.zerosLike(param) : expAvgSq;
        m = m.add(g.sub(m).mul(1 - h.beta1())); // torch's lerp form of β1·m + (1 − β1)·g
        v = v.mul(h.beta2()).add(g.mul(1 - h.beta2()).mul(g));
        Tensor denom = v.sqrt().div(h.bias2Sqrt()).add(h.eps());
        write(param, p.sub(m.div(denom).mul(h.stepSize())));
        return new AdamState(m, v);
    }

    @Override
    public Tensor sgdMomentumStep(Tensor param, Tensor grad, Tensor momentumBuffer, SgdHyper h) {
        Tensor g = h.weightDecay() == 0 ? grad : grad.add(param.mul(h.weightDecay()));
        // PyTorch starts the buffer at the gradient itself, not at (1 − τ)·g.
        Tensor buf = momentumBuffer == null ? g.clone()
                : momentumBuffer.mul(h.momentum()).add(h.dampening() == 0 ? g : g.mul(1 - h.dampening()));
        Tensor step = h.nesterov() ? g.add(buf.mul(h.momentum())) : buf;
        write(param, param.sub(step.mul(h.lr())));
        return buf;
    }

    private static void write(Tensor param, Tensor value) {
        param.backend().copyInto(param.storage(), param.layout(), value.storage(), value.layout());
    }

    @Override
    public String toString() { return "ReferenceOptim"; }
}
