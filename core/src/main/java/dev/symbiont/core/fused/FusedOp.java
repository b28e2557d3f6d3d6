package dev.symbiont.core.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradFn;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

/**
 * The autograd and profiling wrapper every fused op shares, so that a new one is its contract,
 * its reference and one registration:
 *
 * <pre>{@code
 * static final FusedOp<NormKernels> SOFTMAX = FusedOp.of(NormKernels.FAMILY, "softmax", OpCategory.NORMALIZATION);
 *
 * Tensor y = SOFTMAX.run(x.backend(), flops, bytes,
 *         k -> FusedOp.saving(k.softmax(x.detach(), d)),                 // forward: output, and what backward keeps
 *         (k, y, g) -> new Tensor[] {k.softmaxBackward(y, g, d)},        // backward: one gradient per input
 *         x);                                                            // the inputs gradients flow to
 * }</pre>
 *
 * <p>{@link #run} opens the op's profiler scope, picks the kernels ({@link FusedKernels#of}),
 * runs the forward with gradients and autocast off (fused ops record nothing themselves and
 * accumulate in float32; an op that takes autocast's low-precision operands, as linear does, casts
 * them before) and records a backward that calls the same kernels on what the forward
 * chose to save — only that, so a norm keeps its statistics, not its output.
 *
 * @param <K> the family's kernel contract
 */
public final class FusedOp<K> {
    private final Family<K> family;
    private final String name;
    private final OpCategory category;

    private FusedOp(Family<K> family, String name, OpCategory category) {
        this.family = family;
        this.name = name;
        this.category = category;
    }

    /** Registers an op of {@code family} under the name its profiler rows and gradient errors use. */
    public static <K> FusedOp<K> of(Family<K> family, String name, OpCategory category) {
        return new FusedOp<>(family, name, category);
    }

    public String name() { return name; }

    public Family<K> family() { return family; }

    /** What a forward returns: the op's output and what its backward needs (may be the output itself). */
    public record Result<S>(Tensor output, S saved) {}

    /** A forward whose backward needs only its output. */
    public static Result<Tensor> saving(Tensor output) { return new Result<>(output, output); }

    @FunctionalInterface
    public interface Forward<K, S> {
        Result<S> apply(K kernels);
    }

    @FunctionalInterface
    public interface Backward<K, S> {
        /** One gradient per input given to {@link #run} (null where an input gets none). */
        Tensor[] apply(K kernels, S saved, Tensor gradOutput);
    }

    /**
     * Runs the op on {@code backend}'s kernels for the family.
     *
     * @param flops  estimated floating-point operations, for the profiler
     * @param bytes  estimated bytes read and written, for the profiler
     * @param inputs the differentiable inputs, in the order backward returns their gradients (nulls allowed)
     */
    public <S> Tensor run(dev.symbiont.core.backend.Backend backend, long flops, long bytes,
                          Forward<K, S> forward, Backward<K, S> backward, Tensor... inputs) {
        return runOutputs(backend, flops, bytes, k -> {
            Result<S> r = forward.apply(k);
            return new OutputsResult<>(new Tensor[] {r.output()}, r.saved());
        }, (k, saved, g) -> backward.apply(k, saved, g[0]), inputs)[0];
    }

    /** What a two-output forward returns: both outputs and what its backward needs. */
    public record PairResult<S>(Tensor first, Tensor second, S saved) {}

    /** Both outputs of a two-output op, each recorded on the graph. */
    public record Pair(Tensor first, Tensor second) {}

    @FunctionalInterface
    public interface PairForward<K, S> {
        PairResult<S> apply(K kernels);
    }

    @FunctionalInterface
    public interface PairBackward<K, S> {
        /** One gradient per input from the gradients of both outputs (either may be null, not both). */
        Tensor[] apply(K kernels, S saved, Tensor gradFirst, Tensor gradSecond);
    }

    /**
     * Runs a two-output op, as {@link #run}; backward gets both outputs' gradients in one call
     * ({@link Autograd#recordPair}).
     */
    public <S> Pair runPair(dev.symbiont.core.backend.Backend backend, long flops, long bytes,
                            PairForward<K, S> forward, PairBackward<K, S> backward, Tensor... inputs) {
        Tensor[] out = runOutputs(backend, flops, bytes, k -> {
            PairResult<S> r = forward.apply(k);
            return new OutputsResult<>(new Tensor[] {r.first(), r.second()}, r.saved());
        }, (k, saved, g) -> backward.apply(k, saved, g[0], g[1]), inputs);
        return new Pair(out[0], out[1]);
    }

    /** What a forward of several differentiable outputs returns: the outputs and what its backward needs. */
    public record OutputsResult<S>(Tensor[] outputs, S saved) {}

    @FunctionalInterface
    public interface OutputsForward<K, S> {
        OutputsResult<S> apply(K kernels);
    }

    @FunctionalInterface
    public interface OutputsBackward<K, S> {
        /** One gradient per input from one gradient per output (any may be null, not all). */
        Tensor[] apply(K kernels, S saved, Tensor[] gradOutputs);
    }

    /**
     * Runs an op with several differentiable outputs, as {@link #run}; backward gets every output's
     * gradient in one call ({@link Autograd#recordOutputs}). Returns the outputs in the forward's order.
     */
    public <S> Tensor[] runOutputs(dev.symbiont.core.backend.Backend backend, long flops, long bytes,
                                   OutputsForward<K, S> forward, OutputsBackward<K, S> backward, Tensor... inputs) {
        try (var p = Profiler.op(backend, name, category, flops, bytes)) {
            K kernels = FusedKernels.of(family, backend);
            OutputsResult<S> r;
            try (var noGrad = GradMode.disabled(); var f32 = Autocast.disable()) {
                r = forward.apply(kernels);
            }
            S saved = r.saved();
            GradFn.OutputsRule rule = grads -> {
                try (var f32 = Autocast.disable()) {
                    return backward.apply(kernels, saved, grads);
                }
            };
            Autograd.recordOutputs(name, r.outputs(), rule, inputs); // one output: a plain node
            return r.outputs();
        }
    }

    /** Bytes of the tensors' elements (nulls count 0): the usual profiler estimate. */
    public static long bytes(Tensor... tensors) {
        long n = 0;
        for (Tensor t : tensors) if (t != null) n += (long) t.numel() * t.dtype().byteSize();
        return n;
    }
}
