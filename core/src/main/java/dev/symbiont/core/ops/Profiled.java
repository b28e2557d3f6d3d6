package dev.symbiont.core.ops;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

/**
 * The profiler scopes of the cheapest ops, with their work estimates. Each reads the profiler's
 * flag first and counts elements only while a session records: with profiling off a 64-element
 * add pays one volatile read, not the few nanoseconds of walking shapes, which at ~80 ns an op
 * would show. Heavier ops (matmul, norms, lookups) pass their estimates to {@link Profiler#op}
 * directly.
 *
 * <p>Estimates: FLOPs ≈ result elements per pass; bytes ≈ every operand as stored (a broadcast
 * operand counts its own size, which is what a cache-friendly kernel moves) plus the result.
 */
final class Profiled {
    private Profiled() {}

    /** {@code flopsPerElement} passes over x, reading it and writing a result of its size. */
    static Profiler.Scope pass(String name, OpCategory category, Tensor x, long flopsPerElement) {
        if (!Profiler.isActive()) return Profiler.Scope.NONE;
        return Profiler.op(x.backend(), name, category, flopsPerElement * x.numel(), 2 * bytes(x));
    }

    /** A binary op with a result of {@code shape}. */
    static Profiler.Scope binary(String name, int[] shape, Tensor a, Tensor b) {
        if (!Profiler.isActive()) return Profiler.Scope.NONE;
        long n = Layout.numel(shape);
        return Profiler.op(a.backend(), name, OpCategory.ELEMENTWISE, n, bytes(a) + bytes(b) + 4 * n);
    }

    /** where(condition, a, b) with a result of {@code shape}. */
    static Profiler.Scope where(int[] shape, Tensor condition, Tensor a, Tensor b) {
        if (!Profiler.isActive()) return Profiler.Scope.NONE;
        long n = Layout.numel(shape);
        return Profiler.op(a.backend(), "where", OpCategory.ELEMENTWISE, n, bytes(condition) + bytes(a) + bytes(b) + 4 * n);
    }

    /** A reduction of x over dims: one FLOP per input element; reads x, writes the reduced result. */
    static Profiler.Scope reduction(String name, Tensor x, int[] dims) {
        if (!Profiler.isActive()) return Profiler.Scope.NONE;
        long n = x.numel(), reduced = 1;
        for (int d : dims) reduced *= x.size(d);
        return Profiler.op(x.backend(), name, OpCategory.REDUCTION, n, bytes(x) + 4 * (n == 0 ? 0 : n / Math.max(1, reduced)));
    }

    /** Bytes of a tensor's elements; 0 for null. */
    static long bytes(Tensor t) {
        return t == null ? 0 : (long) t.numel() * t.dtype().byteSize();
    }
}
