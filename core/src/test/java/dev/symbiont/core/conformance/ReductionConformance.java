package dev.symbiont.core.conformance;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/** sum, mean, var, max, min, argmax, argmin, cumsum and topk against the reference. */
public abstract class ReductionConformance extends ConformanceBase {

    /** Dim sets over a rank-3 input; null means all dims. */
    private static final int[][] DIM_SETS = {null, {0}, {1}, {-1}, {0, 2}, {0, 1}, {1, 2}, {0, 1, 2}};

    private static final List<String> REDUCTIONS = List.of("sum", "mean", "var", "max", "min");

    private static Tensor reduce(String op, Tensor x, int[] dims, boolean keepdim) {
        int[] all = {0, 1, 2};
        return switch (op) {
            case "sum" -> dims == null ? x.sum() : x.sum(dims, keepdim);
            case "mean" -> dims == null ? x.mean() : x.mean(dims, keepdim);
            case "var" -> x.var(dims == null ? all : dims, keepdim);
            case "max" -> dims == null ? x.max() : x.amax(dims, keepdim);
            case "min" -> dims == null ? x.min() : x.amin(dims, keepdim);
            default -> throw new IllegalArgumentException(op);
        };
    }

    static Stream<Arguments> reductionCases() {
        List<Arguments> cases = new ArrayList<>();
        for (String op : REDUCTIONS) {
            for (int[] dims : DIM_SETS) {
                for (boolean keepdim : new boolean[] {false, true}) {
                    if (dims == null && keepdim) continue;
                    cases.add(Arguments.of(op, dims, keepdim));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} over {1} keepdim={2}")
    @MethodSource("reductionCases")
    void reductionMatchesReferenceOnEveryLayout(String op, int[] dims, boolean keepdim) {
        for (String layout : LAYOUTS) {
            assertMatchesReference(op + " " + Arrays.toString(dims) + " " + layout,
                    in -> reduce(op, in.inLayout(layout, 3, 7, 13), dims, keepdim), ACCUMULATING);
        }
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {1, 3, 7, 13, 33, 129, 4097})
    void reductionsMatchReferenceOnOddLengths(int n) {
        for (String op : REDUCTIONS) {
            if (op.equals("var") && n == 1) continue; // unbiased variance of one element is NaN on both sides
            assertMatchesReference(op + " n=" + n, in -> reduce(op, in.randn(2, n, 1), new int[] {1}, false), reductionTolerance(n));
        }
    }

    @Test
    void reductionsMatchReferenceOnRandomShapesAndDimSets() {
        dev.symbiont.core.Generator g = new dev.symbiont.core.Generator(12);
        for (int c = 0; c < 15; c++) {
            int rank = 1 + g.nextInt(4);
            int[] shape = new int[rank];
            for (int i = 0; i < rank; i++) shape[i] = 1 + g.nextInt(8);
            List<Integer> dims = new ArrayList<>();
            for (int i = 0; i < rank; i++) if (g.nextInt(2) == 0) dims.add(i - (g.nextInt(2) == 0 ? 0 : rank));
            if (dims.isEmpty()) dims.add(-1);
            int[] d = dims.stream().mapToInt(Integer::intValue).toArray();
            boolean keep = g.nextInt(2) == 0;
            String what = Arrays.toString(shape) + " over " + Arrays.toString(d) + " keepdim=" + keep;
            assertMatchesReference("sum " + what, in -> in.randn(shape).sum(d, keep), ACCUMULATING);
            assertMatchesReference("mean " + what, in -> in.randn(shape).mean(d, keep), ACCUMULATING);
            assertMatchesReference("amax " + what, in -> in.randn(shape).amax(d, keep), ELEMENTWISE);
            assertMatchesReference("amin " + what, in -> in.randn(shape).amin(d, keep), ELEMENTWISE);
            assertMatchesReference("softmax " + what, in -> in.randn(shape).softmax(d[0]), ELEMENTWISE);
        }
    }

    @Test
    void varianceWithCorrectionMatchesReference() {
        assertMatchesReference("var correction 0", in -> in.strided(4, 9).var(new int[] {1}, 0, true), ACCUMULATING);
        assertMatchesReference("var of one element", in -> in.randn(3, 1).var(new int[] {1}, false), ACCUMULATING);
    }

    @Test
    void maxAndMinShareGradientBetweenTiesLikeReference() {
        assertMatchesReference("max ties", in -> in.randn(4, 6).clamp(-0.3, 0.3).amax(new int[] {1}, false), ELEMENTWISE);
        assertMatchesReference("min ties", in -> in.randn(4, 6).clamp(-0.3, 0.3).amin(new int[] {0}, true), ELEMENTWISE);
    }

    @Test
    void argmaxAndArgminMatchReferenceOnEveryDimAndLayout() {
        for (String layout : LAYOUTS) {
            for (int dim = -3; dim < 3; dim++) {
                int d = dim;
                for (boolean keep : new boolean[] {false, true}) {
                    assertMatchesReference("argmax " + d + " " + layout, in -> in.inLayout(layout, 3, 7, 13).argmax(d, keep), EXACT);
                    assertMatchesReference("argmin " + d + " " + layout, in -> in.inLayout(layout, 3, 7, 13).argmin(d, keep), EXACT);
                }
            }
        }
    }

    @Test
    void argmaxPicksTheFirstOfTiedValuesLikeReference() {
        assertMatchesReference("argmax ties", in -> in.constant(5, 9).clamp(-0.2, 0.2).argmax(1, false), EXACT);
        assertMatchesReference("argmin ties", in -> in.constant(5, 9).clamp(-0.2, 0.2).argmin(0, true), EXACT);
    }

    @Test
    void cumsumMatchesReferenceAlongEveryDimAndLayout() {
        for (String layout : LAYOUTS) {
            for (int dim = -3; dim < 3; dim++) {
                int d = dim;
                assertMatchesReference("cumsum " + d + " " + layout, in -> in.inLayout(layout, 3, 7, 13).cumsum(d), ACCUMULATING);
            }
        }
        assertMatchesReference("cumsum long", in -> in.randn(2, 1000).cumsum(1), reductionTolerance(1000));
    }

    static Stream<Arguments> topkCases() {
        List<Arguments> cases = new ArrayList<>();
        for (String layout : LAYOUTS) {
            for (int k : new int[] {1, 3, 13}) {
                for (boolean largest : new boolean[] {true, false}) cases.add(Arguments.of(layout, k, largest));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} k={1} largest={2}")
    @MethodSource("topkCases")
    void topkValuesAndIndicesMatchReference(String layout, int k, boolean largest) {
        BiFunction<Tensor, Boolean, Tensor> pick = (x, values) -> {
            var r = x.topk(k, -1, largest);
            return values ? r.values() : r.indices();
        };
        assertMatchesReference("topk values " + layout, in -> pick.apply(in.inLayout(layout, 5, 13), true), EXACT);
        assertMatchesReference("topk indices " + layout, in -> pick.apply(in.inLayout(layout, 5, 13), false), EXACT);
        assertMatchesReference("topk dim 0 " + layout, in -> in.inLayout(layout, 13, 4).topk(Math.min(k, 13), 0, largest).values(), EXACT);
    }

    @Test
    void topkKeepsTheLowerIndexFirstOnTiesLikeReference() {
        assertMatchesReference("topk ties", in -> in.constant(4, 11).clamp(-0.1, 0.1).topk(5, 1, true).indices(), EXACT);
    }
}
