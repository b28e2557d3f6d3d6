package dev.symbiont.nn.parallel;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.distributed.Work;
import dev.symbiont.core.ops.Creation;

/**
 * The gradients of a few parameters packed into one flat float32 tensor, so that one all-reduce
 * averages them all (PyTorch's DDP bucket). Parameter k of the bucket occupies elements
 * {@code [offset_k, offset_k + numel_k)}, seen through a slice shaped like the parameter. A fresh
 * zeroed buffer is made for each synchronised step: a parameter that gets no gradient counts as
 * zero, and the averaged slices can become the parameters' gradients without a copy.
 */
final class Bucket {
    final int index;
    /** Parameter ids, in the bucket's element order. */
    final int[] parameters;
    private final Layout[] slices;
    private final int numel;

    // this step's state: the buffer, how many of its parameters are still to be copied in, its all-reduce
    private Tensor flat;
    private int pending;
    private Work work;

    /** @param shapes every parameter's shape, by id */
    Bucket(int index, int[] parameters, int[][] shapes) {
        this.index = index;
        this.parameters = parameters.clone();
        this.slices = new Layout[parameters.length];
        long offset = 0;
        for (int k = 0; k < parameters.length; k++) {
            int[] shape = shapes[parameters[k]];
            slices[k] = new Layout(shape.clone(), Layout.rowMajorStrides(shape), Math.toIntExact(offset));
            offset += Layout.contiguous(shape).numel();
        }
        this.numel = Math.toIntExact(offset);
    }

    int numel() { return numel; }

    /** Makes this step's zeroed buffer on {@code backend}. */
    void begin(Backend backend) {
        flat = Creation.full(backend, 0, DType.FLOAT32, numel);
        pending = parameters.length;
        work = null;
    }

    /** Drops this step's buffer (the parameters' gradients may still be views of it). */
    void end() {
        flat = null;
        work = null;
    }

    /** Parameter {@code k}'s part of this step's buffer, shaped like the parameter. */
    Tensor slice(int k) { return new Tensor(flat.storage(), slices[k]); }

    /** Copies {@code grad} (float32, parameter {@code k}'s shape) into its slice. */
    void copyIn(int k, Tensor grad) {
        flat.backend().copyInto(flat.storage(), slices[k], grad.storage(), grad.layout());
    }

    /** One more of its parameters is copied in. */
    void markCopied() { pending--; }

    boolean complete() { return pending == 0; }

    boolean started() { return work != null; }

    void started(Work work) { this.work = work; }

    Tensor flat() { return flat; }

    void await() { work.await(); }
}
