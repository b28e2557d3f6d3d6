package dev.symbiont.core.fused.norm;

import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The norm family (softmax, log_softmax, layer_norm, rms_norm, add_layer_norm, add_rms_norm), forward and backward, against its reference. */
public abstract class NormConformance extends ConformanceBase {

    static Stream<Arguments> dimAndLayout() {
        List<Arguments> cases = new ArrayList<>();
        for (String layout : LAYOUTS) for (int dim : new int[] {-1, 0, 1}) cases.add(Arguments.of(dim, layout));
        return cases.stream();
    }

    @ParameterizedTest(name = "dim {0} of a {1} input")
    @MethodSource("dimAndLayout")
    void softmaxMatchesReferenceOnEveryDimAndLayout(int dim, String layout) {
        assertMatchesReference("softmax", in -> in.inLayout(layout, 4, 7, 13).mul(3.0).softmax(dim), ELEMENTWISE);
    }

    @ParameterizedTest(name = "dim {0} of a {1} input")
    @MethodSource("dimAndLayout")
    void logSoftmaxMatchesReferenceOnEveryDimAndLayout(int dim, String layout) {
        assertMatchesReference("log_softmax", in -> in.inLayout(layout, 4, 7, 13).mul(3.0).logSoftmax(dim), ACCUMULATING);
    }

    @ParameterizedTest(name = "row length {0}")
    @ValueSource(ints = {1, 3, 7, 33, 129, 1000})
    void softmaxFamilyMatchesReferenceOnOddRowLengths(int n) {
        assertMatchesReference("softmax n=" + n, in -> in.randn(3, n).mul(4.0).softmax(-1), ELEMENTWISE);
        assertMatchesReference("log_softmax n=" + n, in -> in.randn(3, n).mul(4.0).logSoftmax(-1), ACCUMULATING);
    }

    @Test
    void softmaxMatchesReferenceOnLargeLogitsWithoutOverflow() {
        assertMatchesReference("softmax large", in -> in.randn(5, 9).mul(1000.0).softmax(1), ELEMENTWISE);
        assertMatchesReference("log_softmax large", in -> in.randn(5, 9).mul(1000.0).logSoftmax(1), new Tolerance(1e-5, 1e-3));
    }

    @Test
    void softmaxMatchesReferenceOnNonContiguousInput() {
        assertMatchesReference("softmax narrowed", in -> in.randn(6, 20).narrow(1, 3, 13).softmax(-1), ELEMENTWISE);
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void layerNormMatchesReferenceWithWeightAndBias(String layout) {
        assertMatchesReference("layer_norm " + layout, in -> in.inLayout(layout, 5, 7, 33)
                .layerNorm(new int[] {33}, in.randn(33), in.randn(33), 1e-5), ACCUMULATING);
    }

    @Test
    void layerNormMatchesReferenceOverSeveralTrailingDimsAndWithoutParameters() {
        assertMatchesReference("layer_norm 2 dims", in -> in.permuted(3, 5, 6)
                .layerNorm(new int[] {5, 6}, in.randn(5, 6), in.randn(5, 6), 1e-5), ACCUMULATING);
        assertMatchesReference("layer_norm plain", in -> in.randn(4, 13).layerNorm(new int[] {13}, null, null, 1e-5), ACCUMULATING);
        assertMatchesReference("layer_norm weight only", in -> in.randn(4, 13).layerNorm(new int[] {13}, in.randn(13), null, 1e-5), ACCUMULATING);
        assertMatchesReference("layer_norm width 1", in -> in.randn(4, 1).layerNorm(new int[] {1}, in.randn(1), in.randn(1), 1e-5), ACCUMULATING);
    }

    @Test
    void layerNormOverANonLastDimMatchesReference() {
        // Normalising over dim 1 of (4, 9, 3): move it last, normalise, move it back.
        assertMatchesReference("layer_norm dim 1", in -> in.randn(4, 9, 3).transpose(1, 2)
                .layerNorm(new int[] {9}, in.randn(9), in.randn(9), 1e-5).transpose(1, 2), ACCUMULATING);
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void addLayerNormMatchesReferenceForBothOutputs(String layout) {
        // Both outputs feed the result, so backward sees the gradient of the sum and of the norm.
        assertMatchesReference("add_layer_norm " + layout, in -> {
            Normalization.AddNorm r = Normalization.addLayerNorm(in.inLayout(layout, 5, 7, 33), in.randn(5, 7, 33),
                    new int[] {33}, in.randn(33), in.randn(33), 1e-5);
            return r.output().add(r.sum().mul(in.constant(5, 7, 33)));
        }, ACCUMULATING);
    }

    @Test
    void addLayerNormMatchesReferenceWhenOnlyOneOutputIsUsedAndWithoutParameters() {
        assertMatchesReference("add_layer_norm norm only", in -> Normalization.addLayerNorm(in.randn(4, 13), in.permuted(4, 13),
                new int[] {13}, in.randn(13), null, 1e-5).output(), ACCUMULATING);
        assertMatchesReference("add_layer_norm sum only", in -> Normalization.addLayerNorm(in.randn(4, 13), in.randn(4, 13),
                new int[] {13}, in.randn(13), in.randn(13), 1e-5).sum().square(), ACCUMULATING);
        assertMatchesReference("add_layer_norm plain 2 dims", in -> {
            Normalization.AddNorm r = Normalization.addLayerNorm(in.randn(3, 5, 6), in.randn(3, 5, 6), new int[] {5, 6}, null, null, 1e-5);
            return r.output().mul(r.sum());
        }, ACCUMULATING);
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void addRmsNormMatchesReferenceForBothOutputs(String layout) {
        assertMatchesReference("add_rms_norm " + layout, in -> {
            Normalization.AddNorm r = Normalization.addRmsNorm(in.inLayout(layout, 5, 7, 33), in.randn(5, 7, 33),
                    new int[] {33}, in.randn(33), 1e-6);
            return r.output().add(r.sum().mul(in.constant(5, 7, 33)));
        }, ACCUMULATING);
    }

    @ParameterizedTest(name = "row length {0}")
    @ValueSource(ints = {1, 3, 7, 33, 129, 1000})
    void addRmsNormMatchesReferenceOnOddRowLengthsWithAndWithoutWeight(int n) {
        assertMatchesReference("add_rms_norm n=" + n, in -> {
            Normalization.AddNorm r = Normalization.addRmsNorm(in.randn(3, n), in.permuted(3, n), new int[] {n}, in.randn(n), 1e-6);
            return r.output().mul(r.sum());
        }, ACCUMULATING);
        assertMatchesReference("add_rms_norm plain n=" + n, in -> Normalization.addRmsNorm(in.randn(3, n), in.randn(3, n),
                new int[] {n}, null, 1e-6).output(), ACCUMULATING);
    }

    @Test
    void addRmsNormMatchesReferenceWhenOnlyTheSumIsUsedAndOverSeveralTrailingDims() {
        assertMatchesReference("add_rms_norm sum only", in -> Normalization.addRmsNorm(in.randn(4, 13), in.strided(4, 13),
                new int[] {13}, in.randn(13), 1e-6).sum().square(), ACCUMULATING);
        assertMatchesReference("add_rms_norm 2 dims", in -> {
            Normalization.AddNorm r = Normalization.addRmsNorm(in.transposed(3, 5, 6), in.randn(3, 5, 6), new int[] {5, 6},
                    in.randn(5, 6), 1e-6);
            return r.output().sub(r.sum());
        }, ACCUMULATING);
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void rmsNormMatchesReferenceWithAndWithoutWeight(String layout) {
        assertMatchesReference("rms_norm " + layout, in -> in.inLayout(layout, 5, 7, 33).rmsNorm(new int[] {33}, in.randn(33), 1e-6), ACCUMULATING);
        assertMatchesReference("rms_norm plain " + layout, in -> in.inLayout(layout, 5, 7, 33).rmsNorm(new int[] {7, 33}, null, 1e-6), ACCUMULATING);
    }

    @Test
    void rmsNormOverANonLastDimMatchesReference() {
        assertMatchesReference("rms_norm dim 0", in -> in.randn(9, 4).t().rmsNorm(new int[] {9}, in.randn(9), 1e-6).t(), ACCUMULATING);
    }
}
