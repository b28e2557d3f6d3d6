package dev.symbiont.core.fused.linear;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The linear family: y = x·Wᵀ + b and its three gradients against the reference, on every
 * input layout, weights seen through views (a transpose, the rows a fused qkv projection
 * narrows to), without a bias, with inputs that take no gradient, and on sizes that cross the
 * GEMM's tile and block edges (the bias gradient is summed across k blocks of 256 rows).
 */
public abstract class LinearConformance extends ConformanceBase {

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void linearMatchesReferenceOnEveryInputLayout(String layout) {
        assertMatchesReference("linear " + layout,
                in -> Linears.linear(in.inLayout(layout, 6, 11), in.randn(5, 11), in.randn(5)), matmulTolerance(11));
    }

    @ParameterizedTest(name = "rows {0}, in {1}, out {2}")
    @CsvSource({"1, 1, 1", "7, 13, 3", "37, 19, 23", "300, 70, 41", "130, 150, 200"})
    void linearMatchesReferenceOnOddSizes(int rows, int in, int out) {
        assertMatchesReference("linear " + rows + "x" + in + "→" + out,
                i -> Linears.linear(i.randn(rows, in), i.randn(out, in), i.randn(out)), matmulTolerance(Math.max(in, rows)));
    }

    /** A weight kept in bfloat16, on a decoding step's few rows and on more: the widened weight's product. */
    @ParameterizedTest(name = "rows {0}")
    @ValueSource(ints = {1, 2, 4, 5, 33})
    void linearOnABfloat16WeightMatchesReference(int rows) {
        assertMatchesReference("linear bfloat16 weight, rows " + rows,
                in -> Linears.linear(in.randn(rows, 70), in.randn(37, 70).to(DType.BFLOAT16), in.randn(37)), matmulTolerance(70));
        assertMatchesReference("linear_gelu bfloat16 weight, rows " + rows,
                in -> Linears.linearGelu(in.randn(rows, 19), in.randn(9, 19).to(DType.BFLOAT16), null), matmulTolerance(19));
    }

    @Test
    void linearTakesBatchedInputsAndWeightViews() {
        assertMatchesReference("linear 3-D input", in -> Linears.linear(in.randn(2, 5, 9), in.randn(4, 9), in.randn(4)),
                matmulTolerance(10));
        assertMatchesReference("linear transposed weight", in -> Linears.linear(in.randn(8, 9), in.transposed(4, 9), in.randn(4)),
                matmulTolerance(9));
        assertMatchesReference("linear narrowed weight and bias",
                in -> Linears.linear(in.randn(8, 9), in.randn(12, 9).narrow(0, 4, 4), in.randn(12).narrow(0, 4, 4)),
                matmulTolerance(9));
    }

    @Test
    void linearWithoutBiasOrWithoutSomeGradients() {
        assertMatchesReference("linear no bias", in -> Linears.linear(in.randn(20, 17), in.randn(9, 17), null), matmulTolerance(20));
        assertMatchesReference("linear constant input",
                in -> Linears.linear(in.constant(20, 17), in.randn(9, 17), in.randn(9)), matmulTolerance(20));
        assertMatchesReference("linear constant weight, bias only",
                in -> Linears.linear(in.randn(20, 17), in.constant(9, 17), in.randn(9)), matmulTolerance(20));
        assertMatchesReference("linear only the bias learns",
                in -> Linears.linear(in.constant(20, 17), in.constant(9, 17), in.randn(9)), matmulTolerance(20));
    }

    @Test
    void gradientOfASumReachesTheKernelAsABroadcastScalar() {
        assertMatchesReference("linear sum", in -> {
            Tensor y = Linears.linear(in.randn(6, 5), in.randn(3, 5), in.randn(3));
            return y.sum();
        }, matmulTolerance(6));
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void linearSplitMatchesReferenceOnEveryInputLayout(String layout) {
        assertMatchesReference("linear_split " + layout,
                in -> Tensor.cat(List.of(Linears.linearSplit(in.inLayout(layout, 6, 11), in.randn(9, 11), in.randn(9), 4, 3, 2)), -1),
                matmulTolerance(11));
    }

    @ParameterizedTest(name = "rows {0}, in {1}, groups {2} {3} {4}")
    @CsvSource({"1, 1, 1, 1, 1", "37, 19, 23, 5, 5", "130, 150, 64, 100, 36"})
    void linearSplitMatchesReferenceOnOddSizes(int rows, int in, int q, int k, int v) {
        assertMatchesReference("linear_split " + rows + "x" + in + "→" + q + "+" + k + "+" + v,
                i -> Tensor.cat(List.of(Linears.linearSplit(i.randn(2, rows, in), i.randn(q + k + v, in), i.randn(q + k + v), q, k, v)), -1),
                matmulTolerance(Math.max(in, rows)));
    }

    @Test
    void linearSplitWithAGroupUnusedNoBiasOrSomeGradients() {
        assertMatchesReference("linear_split, middle group unused", in -> {
            Tensor[] g = Linears.linearSplit(in.randn(8, 9), in.randn(12, 9), in.randn(12), 4, 4, 4);
            return Tensor.cat(List.of(g[0], g[2]), -1);
        }, matmulTolerance(9));
        assertMatchesReference("linear_split no bias, transposed weight",
                in -> Tensor.cat(List.of(Linears.linearSplit(in.randn(20, 17), in.transposed(9, 17), null, 6, 3)), -1),
                matmulTolerance(20));
        assertMatchesReference("linear_split only the bias learns",
                in -> Tensor.cat(List.of(Linears.linearSplit(in.constant(20, 17), in.constant(9, 17), in.randn(9), 2, 7)), -1),
                matmulTolerance(20));
        assertMatchesReference("linear_split constant weight",
                in -> Tensor.cat(List.of(Linears.linearSplit(in.randn(20, 17), in.constant(9, 17), in.randn(9), 5, 4)), -1),
                matmulTolerance(20));
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void linearGeluMatchesReferenceOnEveryInputLayout(String layout) {
        assertMatchesReference("linear_gelu " + layout,
                in -> Linears.linearGelu(in.inLayout(layout, 6, 11), in.randn(5, 11), in.randn(5)), matmulTolerance(11));
    }

    @ParameterizedTest(name = "rows {0}, in {1}, out {2}")
    @CsvSource({"1, 1, 1", "7, 13, 3", "37, 19, 23", "130, 150, 200"})
    void linearGeluMatchesReferenceOnOddSizes(int rows, int in, int out) {
        assertMatchesReference("linear_gelu " + rows + "x" + in + "→" + out,
                i -> Linears.linearGelu(i.randn(rows, in), i.randn(out, in), i.randn(out)), matmulTolerance(Math.max(in, rows)));
    }

    @Test
    void linearGeluWithViewsNoBiasOrSomeGradients() {
        assertMatchesReference("linear_gelu 3-D input, narrowed weight",
                in -> Linears.linearGelu(in.randn(2, 5, 9), in.randn(12, 9).narrow(0, 4, 4), in.randn(12).narrow(0, 4, 4)),
                matmulTolerance(10));
        assertMatchesReference("linear_gelu no bias", in -> Linears.linearGelu(in.randn(20, 17), in.transposed(9, 17), null),
                matmulTolerance(20));
        assertMatchesReference("linear_gelu only the bias learns",
                in -> Linears.linearGelu(in.constant(20, 17), in.constant(9, 17), in.randn(9)), matmulTolerance(20));
        assertMatchesReference("linear_gelu sum", in -> Linears.linearGelu(in.randn(6, 5), in.randn(3, 5), in.randn(3)).sum(),
                matmulTolerance(6));
    }

    @Test
    void linearGeluWithoutGradientsKeepsNoDerivativeAndGivesTheSameValues() {
        assertMatchesReference("linear_gelu under no_grad", in -> {
            try (var off = GradMode.disabled()) {
                return Linears.linearGelu(in.constant(33, 7), in.constant(10, 7), in.constant(10));
            }
        }, matmulTolerance(7));
    }

    // ---- under autocast: bfloat16 or float16 x and W reach the family's kernels ----------------

    /** The computation with autocast on in {@code low} (the inputs drawn before, backward after, as in training). */
    private static Tensor autocast(DType low, java.util.function.Supplier<Tensor> forward) {
        try (var scope = Autocast.enable(low)) {
            return forward.get();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void linearFamilyUnderAutocastMatchesReference(DType low) {
        assertMatchesReference("linear autocast " + low, in -> {
            Tensor x = in.inLayout("transposed", 37, 19), w = in.randn(23, 19), b = in.randn(23);
            return autocast(low, () -> Linears.linear(x, w, b));
        }, matmulTolerance(37));
        assertMatchesReference("linear autocast, no bias, transposed weight " + low, in -> {
            Tensor x = in.randn(2, 7, 13), w = in.transposed(5, 13);
            return autocast(low, () -> Linears.linear(x, w, null));
        }, matmulTolerance(14));
        assertMatchesReference("linear_gelu autocast " + low, in -> {
            Tensor x = in.strided(9, 17), w = in.randn(12, 17).narrow(0, 4, 8), b = in.randn(8);
            return autocast(low, () -> Linears.linearGelu(x, w, b));
        }, matmulTolerance(17));
        assertMatchesReference("linear_split autocast " + low, in -> {
            Tensor x = in.randn(20, 17), w = in.randn(9, 17), b = in.randn(9);
            return autocast(low, () -> {
                Tensor[] g = Linears.linearSplit(x, w, b, 4, 3, 2);
                return Tensor.cat(List.of(g[0], g[2]), -1);
            });
        }, matmulTolerance(20));
    }

    /**
     * Under autocast the family gives what autocast's matmul and the add gave before the family
     * received low-precision operands: the same products of the same rounded values, on this backend.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void linearUnderAutocastGivesTheMatmulAndAddCompositionsValuesAndGradients(DType low) {
        Computation fused = in -> {
            Tensor x = in.randn(2, 13, 33), w1 = in.randn(40, 33), b1 = in.randn(40), w2 = in.randn(33, 40);
            return autocast(low, () -> Linears.linear(Linears.linearGelu(x, w1, b1), w2, null));
        };
        Computation composed = in -> {
            Tensor x = in.randn(2, 13, 33), w1 = in.randn(40, 33), b1 = in.randn(40), w2 = in.randn(33, 40);
            return autocast(low, () -> x.matmul(w1.t()).add(b1).gelu().matmul(w2.t()));
        };
        Outcome before = run(backend(), composed), now = run(backend(), fused);
        assertEquals(DType.FLOAT32, now.dtype(), "autocast's linear returns float32");
        assertOutcomesClose("linear_gelu then linear under autocast " + low, before, now, matmulTolerance(40), matmulTolerance(40 * 26));
    }
}
