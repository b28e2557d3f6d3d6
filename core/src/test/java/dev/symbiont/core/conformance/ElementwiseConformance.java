package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.ops.Comparisons;
import dev.symbiont.core.ops.Elementwise;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Unary and binary ops, broadcasting, comparisons, where, clamp and casts against the reference. */
public abstract class ElementwiseConformance extends ConformanceBase {

    /** Inputs inside the op's domain: positive where the op needs it. */
    private static Tensor unaryInput(UnaryOp op, Inputs in, String layout, int... shape) {
        return switch (op) {
            case LOG, SQRT, RSQRT, RECIPROCAL -> inLayoutPositive(in, layout, shape);
            default -> in.inLayout(layout, shape).mul(2.0);
        };
    }

    private static Tensor inLayoutPositive(Inputs in, String layout, int... shape) {
        return in.inLayout(layout, shape).abs().add(0.5);
    }

    static Stream<Arguments> unaryCases() {
        List<Arguments> cases = new ArrayList<>();
        for (UnaryOp op : UnaryOp.values()) for (String layout : LAYOUTS) cases.add(Arguments.of(op, layout));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} on a {1} input")
    @MethodSource("unaryCases")
    void unaryOpMatchesReferenceForwardAndBackward(UnaryOp op, String layout) {
        assertMatchesReference(op + " " + layout, in -> Elementwise.unary(op, unaryInput(op, in, layout, 7, 13)), ELEMENTWISE);
    }

    @ParameterizedTest(name = "size {0}")
    @ValueSource(ints = {1, 3, 7, 13, 33, 129, 1000})
    void unaryOpsMatchReferenceOnOddSizes(int n) {
        for (UnaryOp op : UnaryOp.values()) {
            assertMatchesReference(op + " n=" + n, in -> Elementwise.unary(op, unaryInput(op, in, "contiguous", 1, n)), ELEMENTWISE);
        }
    }

    @Test
    void unaryOpsMatchReferenceOnRankZeroAndEmptyTensors() {
        for (UnaryOp op : UnaryOp.values()) {
            assertMatchesReference(op + " scalar", in -> Elementwise.unary(op, in.positive()), ELEMENTWISE);
            assertMatchesReference(op + " empty", in -> Elementwise.unary(op, in.randn(0, 3)), ELEMENTWISE);
        }
    }

    static Stream<Arguments> binaryCases() {
        int[][][] shapes = {
                {{7, 13}, {7, 13}},
                {{4, 1, 5}, {3, 1}},
                {{3, 1}, {4, 1, 5}},
                {{1}, {33}},
                {{2, 3, 4}, {}},
                {{}, {5, 1}},
                {{129}, {129}},
                {{1, 1, 7}, {3, 1, 1}},
        };
        List<Arguments> cases = new ArrayList<>();
        for (BinaryOp op : BinaryOp.values()) {
            for (int[][] pair : shapes) cases.add(Arguments.of(op, pair[0], pair[1]));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} of {1} and {2}")
    @MethodSource("binaryCases")
    void binaryOpMatchesReferenceWithBroadcasting(BinaryOp op, int[] shapeA, int[] shapeB) {
        assertMatchesReference(op + " broadcast", in -> {
            Tensor a = op == BinaryOp.POW ? in.positive(shapeA) : in.randn(shapeA);
            Tensor b = op == BinaryOp.DIV ? in.positive(shapeB) : in.randn(shapeB);
            return Elementwise.binary(op, a, b);
        }, ELEMENTWISE);
    }

    /** A random shape of rank 1..4 with sizes 1..9, and a second shape that broadcasts against it. */
    static Stream<Arguments> randomBroadcastShapes() {
        dev.symbiont.core.Generator g = new dev.symbiont.core.Generator(11);
        List<Arguments> cases = new ArrayList<>();
        for (int c = 0; c < 12; c++) {
            int rank = 1 + g.nextInt(4);
            int[] a = new int[rank];
            for (int i = 0; i < rank; i++) a[i] = 1 + g.nextInt(9);
            int rankB = 1 + g.nextInt(rank);
            int[] b = new int[rankB];
            for (int i = 0; i < rankB; i++) {
                int matching = a[rank - rankB + i];
                b[i] = g.nextInt(3) == 0 ? 1 : matching;
                if (g.nextInt(4) == 0) a[rank - rankB + i] = 1; // broadcast the other way too
                if (a[rank - rankB + i] == 1 && b[i] == 1) b[i] = matching;
            }
            cases.add(Arguments.of(a, b));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("randomBroadcastShapes")
    void elementwiseOpsMatchReferenceOnRandomBroadcastShapes(int[] shapeA, int[] shapeB) {
        assertMatchesReference("random shapes", in -> {
            Tensor a = in.randn(shapeA), b = in.positive(shapeB);
            return a.mul(b).sub(a.div(b)).add(b.pow(a.tanh())).maximum(a.neg()).gelu();
        }, ELEMENTWISE);
    }

    static Stream<Arguments> binaryLayoutCases() {
        List<Arguments> cases = new ArrayList<>();
        for (BinaryOp op : BinaryOp.values()) for (String layout : LAYOUTS) cases.add(Arguments.of(op, layout));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} with a {1} operand")
    @MethodSource("binaryLayoutCases")
    void binaryOpMatchesReferenceOnNonContiguousOperands(BinaryOp op, String layout) {
        assertMatchesReference(op + " " + layout, in -> {
            Tensor a = in.inLayout(layout, 5, 9);
            Tensor b = in.inLayout(layout.equals("transposed") ? "permuted" : "transposed", 5, 9);
            if (op == BinaryOp.POW) a = a.abs().add(0.5);
            if (op == BinaryOp.DIV) b = b.abs().add(0.5);
            return Elementwise.binary(op, a, b);
        }, ELEMENTWISE);
    }

    @Test
    void comparisonsMatchReferenceIncludingTies() {
        for (BinaryOp op : BinaryOp.values()) {
            if (!op.isComparison()) continue;
            assertMatchesReference(op + " ties", in -> {
                Tensor a = in.constant(6, 7).mul(2.0).clamp(-1, 1);
                Tensor b = in.constant(7).mul(2.0).clamp(-1, 1);
                return Elementwise.binary(op, a, b);
            }, EXACT);
        }
    }

    @Test
    void integerComparisonsMatchReferenceExactlyPast2To24() {
        long big = 1L << 40;
        for (BinaryOp op : BinaryOp.values()) {
            if (!op.isComparison()) continue;
            assertMatchesReference(op + " int64 transposed", in -> {
                Tensor a = Tensor.fromArray(new long[] {big, big + 1, -3, 16_777_217L, 5, big - 1}, 2, 3).t();
                Tensor b = Tensor.fromArray(new long[] {big, 16_777_216L, big, -3, big + 1, 5}, 3, 2);
                return Comparisons.compare(op, a, b);
            }, EXACT);
            assertMatchesReference(op + " int32 with broadcast int64", in -> {
                Tensor a = Tensor.fromArray(new int[] {Integer.MAX_VALUE, -1, 0}, 3, 1);
                Tensor b = Tensor.fromArray(new long[] {Integer.MAX_VALUE + 1L, -1, Integer.MAX_VALUE}, 3);
                return Comparisons.compare(op, a, b);
            }, EXACT);
        }
    }

    @Test
    void maximumAndMinimumShareTheGradientOnTiesLikeReference() {
        assertMatchesReference("maximum ties", in -> {
            Tensor a = in.randn(4, 5);
            return a.maximum(a.detach().mul(1.0)).add(a.minimum(in.randn(4, 5)));
        }, ELEMENTWISE);
    }

    @Test
    void scalarOperandsMatchReference() {
        assertMatchesReference("scalar ops", in -> {
            Tensor x = in.positive(3, 7).transpose(0, 1);
            return x.add(1.5).sub(0.25).mul(-2.0).div(3.0).add(x.pow(1.7)).add(x.pow(-0.5));
        }, ELEMENTWISE);
    }

    @Test
    void whereMatchesReferenceWithBroadcastConditionAndOperands() {
        assertMatchesReference("where broadcast", in -> Tensor.where(in.mask(4, 1, 5), in.randn(3, 1), in.strided(4, 3, 5)), ELEMENTWISE);
        assertMatchesReference("where transposed", in -> in.mask(6, 5).t().where(in.randn(5, 6), in.transposed(5, 6)), ELEMENTWISE);
    }

    @Test
    void clampMatchesReferenceForwardAndBackward() {
        assertMatchesReference("clamp", in -> in.strided(7, 13).mul(2.0).clamp(-0.7, 0.9), ELEMENTWISE);
    }

    @Test
    void chainedElementwiseExpressionMatchesReference() {
        assertMatchesReference("expression", in -> {
            Tensor x = in.permuted(3, 4, 5), y = in.randn(5);
            return x.mul(y).tanh().add(x.sigmoid().mul(y.exp())).silu().sub(x.square().mul(0.1));
        }, ELEMENTWISE);
    }

    static Stream<Arguments> castCases() {
        List<Arguments> cases = new ArrayList<>();
        for (DType from : DType.values()) for (DType to : DType.values()) cases.add(Arguments.of(from, to));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} to {1}")
    @MethodSource("castCases")
    void castMatchesReferenceBetweenEveryPairOfDtypes(DType from, DType to) {
        assertMatchesReference("cast " + from + " to " + to, in -> {
            // Values with fractions, negatives, halves-rounding cases and some large magnitudes.
            Tensor x = in.constant(5, 13).mul(300.0).t();
            return x.to(from).to(to).to(DType.FLOAT32);
        }, EXACT);
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void halfRoundTripPassesGradientsLikeReference(DType half) {
        assertMatchesReference("round trip " + half, in -> in.transposed(4, 6).to(half).to(DType.FLOAT32).mul(2.0), EXACT);
    }

    @Test
    void contiguousCopyOfEveryLayoutMatchesReferenceExactly() {
        for (String layout : LAYOUTS) {
            assertMatchesReference("contiguous " + layout, in -> in.inLayout(layout, 6, 7).contiguous(), EXACT);
        }
    }
}
