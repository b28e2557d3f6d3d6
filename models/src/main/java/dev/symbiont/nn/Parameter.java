package dev.symbiont.nn;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;

import java.util.Arrays;

/**
 * A trainable tensor owned by a module. The value is a leaf that requires grad (unless the
 * parameter is frozen); optimizers write new values into it in place with {@link #update}, so
 * tied weights (one parameter registered under two names) and anyone holding {@link #value()}
 * see each step.
 */
public final class Parameter {
    private Tensor value;
    private boolean frozen;

    /** Wraps a private copy of {@code initial} as a leaf that requires grad. */
    public Parameter(Tensor initial) {
        this.value = leaf(initial, true);
    }

    /** The current value: a leaf to use in the forward pass. */
    public Tensor value() { return value; }

    /** The gradient accumulated by backward since the last {@link #zeroGrad()}, or null. */
    public Tensor grad() { return value.grad(); }

    public void zeroGrad() { value.zeroGrad(); }

    /** Replaces the gradient (clipping, loss-scale removal); null clears it. */
    public void setGrad(Tensor grad) { value.setGrad(grad); }

    public int[] shape() { return value.shape(); }

    public int numel() { return value.numel(); }

    public boolean frozen() { return frozen; }

    /** A frozen parameter gets no gradient and optimizers skip it. */
    public void freeze(boolean on) {
        frozen = on;
        value.zeroGrad();
        value.requiresGrad(!on);
    }

    /**
     * Writes {@code newValue} into this parameter's storage (an optimizer step). The shape and
     * dtype must match; the value keeps its identity, so tensors holding it see the update.
     */
    public void update(Tensor newValue) {
        check("update", newValue);
        try (var scope = GradMode.disabled()) {
            Backend backend = value.backend();
            Tensor src = newValue.backend() == backend ? newValue : newValue.to(backend);
            backend.copyInto(value.storage(), value.layout(), src.storage(), src.layout());
        }
    }

    /**
     * Replaces the value with {@code newValue} (a checkpoint load or a move to another
     * backend); the old gradient is dropped. The shape must match.
     */
    public void replace(Tensor newValue) {
        check("replace", newValue);
        value = leaf(newValue, !frozen);
    }

    /**
     * The value converted to {@code dtype} (torch's {@code param.data = param.data.to(dtype)}): a
     * pretrained model's matrices kept at the precision its checkpoint stores. The gradient is dropped.
     */
    public void castTo(DType dtype) {
        if (value.dtype() == dtype) return;
        try (var scope = GradMode.disabled()) {
            value = value.detach().to(dtype).requiresGrad(!frozen);
        }
    }

    private void check(String op, Tensor newValue) {
        if (!Arrays.equals(newValue.shape(), value.shape()) || newValue.dtype() != value.dtype()) {
            throw new IllegalArgumentException("Parameter." + op + ": expected " + value.dtype() + " " + Arrays.toString(value.shape())
                    + ", got " + newValue.dtype() + " " + Arrays.toString(newValue.shape()));
        }
    }

    private static Tensor leaf(Tensor t, boolean requiresGrad) {
        // Always a private copy: in-place updates must never write into the caller's tensor
        // (a loaded state dict shared by two models would otherwise train both).
        Tensor own;
        try (var scope = GradMode.disabled()) {
            own = t.detach().clone();
        }
        return own.requiresGrad(requiresGrad);
    }

    @Override
    public String toString() {
        return "Parameter(" + Arrays.toString(value.shape()) + (frozen ? ", frozen" : "") + ")";
    }
}
