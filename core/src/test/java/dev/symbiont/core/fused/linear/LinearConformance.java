package dev.symbiont.core.fused.linear;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

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
}
