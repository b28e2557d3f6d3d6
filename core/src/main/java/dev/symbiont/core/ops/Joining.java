package dev.symbiont.core.ops;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** cat, stack, split and chunk. */
public final class Joining {
    private Joining() {}

    public static Tensor cat(List<Tensor> tensors, int dim) {
        if (tensors.isEmpty()) throw new IllegalArgumentException("cat: needs at least one tensor");
        Tensor first = tensors.getFirst();
        Checks.sameBackend("cat", tensors.toArray(Tensor[]::new));
        int d = first.layout().dim("cat", dim);
        int[] outShape = first.shape();
        long total = 0;
        for (int i = 0; i < tensors.size(); i++) {
            Tensor t = tensors.get(i);
            int[] s = t.shape();
            boolean ok = s.length == outShape.length && t.dtype() == first.dtype();
            for (int j = 0; ok && j < s.length; j++) ok = j == d || s[j] == outShape[j];
            if (!ok) {
                throw new IllegalArgumentException("cat: tensor " + i + " has shape " + Arrays.toString(s) + " (" + t.dtype()
                        + ") but tensor 0 has " + Arrays.toString(outShape) + " (" + first.dtype() + "); all dims but " + d + " must match");
            }
            total += s[d];
        }
        if (total > Layout.MAX_ELEMENTS) {
            throw new IllegalArgumentException("cat: dim " + d + " would have " + total + " entries, more than 2^31 - 1");
        }
        outShape[d] = (int) total;
        long bytes = (long) Layout.numel("cat", outShape) * first.dtype().byteSize();
        try (var p = Profiler.op(first.backend(), "cat", OpCategory.COPY, 0, 2 * bytes)) {
            Backend backend = first.backend();
            Storage out = backend.allocate(first.dtype(), Layout.numel(outShape));
            Layout outLayout = Layout.contiguous(outShape);
            int[] starts = new int[tensors.size()];
            int start = 0;
            for (int i = 0; i < tensors.size(); i++) {
                Tensor t = tensors.get(i);
                starts[i] = start;
                int len = t.size(d);
                if (len > 0) backend.copyInto(out, outLayout.narrow(d, start, len), t.storage(), t.layout());
                start += len;
            }
            Tensor result = new Tensor(out, outLayout);
            return Autograd.record("cat", result, g -> {
                Tensor[] grads = new Tensor[tensors.size()];
                for (int i = 0; i < grads.length; i++) grads[i] = g.narrow(d, starts[i], tensors.get(i).size(d));
                return grads;
            }, tensors.toArray(Tensor[]::new));
        }
    }

    public static Tensor stack(List<Tensor> tensors, int dim) {
        if (tensors.isEmpty()) throw new IllegalArgumentException("stack: needs at least one tensor");
        int[] shape = tensors.getFirst().shape();
        int d = Layout.normalizeDim("stack", dim, shape.length + 1, shape);
        List<Tensor> expanded = new ArrayList<>();
        for (int i = 0; i < tensors.size(); i++) {
            if (!Arrays.equals(tensors.get(i).shape(), shape)) {
                throw new IllegalArgumentException("stack: tensor " + i + " has shape " + Arrays.toString(tensors.get(i).shape())
                        + " but tensor 0 has " + Arrays.toString(shape));
            }
            expanded.add(tensors.get(i).unsqueeze(d));
        }
        return cat(expanded, d);
    }

    public static List<Tensor> split(Tensor x, int splitSize, int dim) {
        if (splitSize <= 0) throw new IllegalArgumentException("split: split size must be positive, got " + splitSize);
        int d = x.layout().dim("split", dim);
        int size = x.size(d);
        List<Tensor> parts = new ArrayList<>();
        for (int start = 0; start < size; start += splitSize) parts.add(x.narrow(d, start, Math.min(splitSize, size - start)));
        if (parts.isEmpty()) parts.add(x);
        return parts;
    }

    public static List<Tensor> chunk(Tensor x, int chunks, int dim) {
        if (chunks <= 0) throw new IllegalArgumentException("chunk: number of chunks must be positive, got " + chunks);
        int size = x.size(dim);
        return split(x, Math.max(1, (size + chunks - 1) / chunks), dim);
    }

    /** Zeros of {@code shape} with {@code g} written at start, start+step, ... along dim (gradient of a slice). */
    static Tensor padInto(Tensor g, int[] shape, int dim, int start, int step) {
        // Writes the zeros and reads and writes g.
        long bytes = (long) Layout.numel(shape) * g.dtype().byteSize() + 2 * Profiled.bytes(g);
        try (var p = Profiler.op(g.backend(), "pad", OpCategory.COPY, 0, bytes)) {
            Backend backend = g.backend();
            Storage out = backend.allocate(g.dtype(), Layout.numel(shape));
            Layout full = Layout.contiguous(shape);
            int[] regionShape = full.shape().clone();
            regionShape[dim] = g.size(dim);
            int[] regionStrides = full.strides().clone();
            regionStrides[dim] *= step;
            Layout region = new Layout(regionShape, regionStrides, start * full.strides()[dim]);
            if (g.numel() > 0) backend.copyInto(out, region, g.storage(), g.layout());
            return new Tensor(out, full);
        }
    }
}
