package dev.symbiont.core.reference;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import org.junit.jupiter.api.Test;

import static dev.symbiont.core.reference.Fixtures.assertFloats;
import static dev.symbiont.core.reference.Fixtures.f32;
import static dev.symbiont.core.reference.Fixtures.floats;
import static dev.symbiont.core.reference.Fixtures.i32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReferenceElementwiseTest {
    private static final float NAN = Float.NaN, INF = Float.POSITIVE_INFINITY;
    private final ReferenceBackend backend = new ReferenceBackend();

    private float[] unary(UnaryOp op, float... x) {
        Storage s = backend.unary(op, f32(backend, x), Layout.contiguous(x.length));
        return floats(backend, s, x.length);
    }

    private void checkUnary(UnaryOp op, float[] x, float[] expected) {
        assertFloats(expected, unary(op, x), 1e-6f);
    }

    @Test
    void should_compute_simple_unary_ops() {
        checkUnary(UnaryOp.NEG, new float[] {2, -0.5f, 0}, new float[] {-2, 0.5f, 0});
        checkUnary(UnaryOp.ABS, new float[] {-3, 3, NAN}, new float[] {3, 3, NAN});
        checkUnary(UnaryOp.EXP, new float[] {0, 1, -1000, 1000}, new float[] {1, 2.7182817f, 0, INF});
        checkUnary(UnaryOp.LOG, new float[] {1, 0, -1}, new float[] {0, -INF, NAN});
        checkUnary(UnaryOp.SQRT, new float[] {4, 0, -1}, new float[] {2, 0, NAN});
        checkUnary(UnaryOp.RSQRT, new float[] {4, 0.25f, 0}, new float[] {0.5f, 2, INF});
        checkUnary(UnaryOp.TANH, new float[] {0, 0.5f, 1000, -1000}, new float[] {0, 0.46211716f, 1, -1});
        checkUnary(UnaryOp.RELU, new float[] {-1, 2, 0, NAN}, new float[] {0, 2, 0, NAN});
        checkUnary(UnaryOp.RECIPROCAL, new float[] {4, -0.5f, 0}, new float[] {0.25f, -2, INF});
        checkUnary(UnaryOp.SQUARE, new float[] {-3, 1.5f}, new float[] {9, 2.25f});
    }

    @Test
    void should_give_pytorch_sign_including_zero_and_nan() {
        checkUnary(UnaryOp.SIGN, new float[] {-3, 0, -0f, 5, NAN, -INF}, new float[] {-1, 0, 0, 1, 0, -1});
    }

    @Test
    void should_keep_sigmoid_finite_at_extremes() {
        checkUnary(UnaryOp.SIGMOID, new float[] {0, 2, 1000, -1000, -INF, INF},
                new float[] {0.5f, 0.8807970779778823f, 1, 0, 0, 1});
    }

    @Test
    void should_compute_both_gelus() {
        // GELU_ERF(x) = x * Phi(x); Phi(1) = 0.8413447460685429; -10 * Phi(-10) = -7.6198530e-23
        checkUnary(UnaryOp.GELU_ERF, new float[] {0, 1, -1, 10}, new float[] {0, 0.8413447460685429f, -0.15865525393145707f, 10});
        float tiny = unary(UnaryOp.GELU_ERF, -10)[0];
        assertEquals(-7.619853e-23f, tiny, 1e-28f);
        checkUnary(UnaryOp.GELU_TANH, new float[] {0, 1, -2, 1000, -1000},
                new float[] {0, 0.8411919906082768f, -0.04540230591222494f, 1000, 0});
    }

    @Test
    void should_compute_silu_and_stable_softplus() {
        checkUnary(UnaryOp.SILU, new float[] {0, 1, -1, 1000, -1000},
                new float[] {0, 0.7310585786300049f, -0.2689414213699951f, 1000, 0});
        checkUnary(UnaryOp.SOFTPLUS, new float[] {0, 1, 30, 1000, -1000, NAN},
                new float[] {0.6931471805599453f, 1.3132616875182228f, 30, 1000, 0, NAN});
    }

    @Test
    void should_compute_erf_as_float() {
        checkUnary(UnaryOp.ERF, new float[] {0.5f, 1, -2, 3, 0, 100},
                new float[] {0.5204998778130465f, 0.8427007929497149f, -0.9953222650189527f, 0.9999779095030014f, 0, 1});
    }

    @Test
    void should_compute_arithmetic_and_pow() {
        Storage a = f32(backend, 6, -2, 2, 0);
        Storage b = f32(backend, 3, 4, 0.5f, -1);
        Layout l = Layout.contiguous(4);
        assertFloats(new float[] {9, 2, 2.5f, -1}, floats(backend, backend.binary(BinaryOp.ADD, a, l, b, l), 4), 0);
        assertFloats(new float[] {3, -6, 1.5f, 1}, floats(backend, backend.binary(BinaryOp.SUB, a, l, b, l), 4), 0);
        assertFloats(new float[] {18, -8, 1, -0f}, floats(backend, backend.binary(BinaryOp.MUL, a, l, b, l), 4), 0);
        assertFloats(new float[] {2, -0.5f, 4, -0f}, floats(backend, backend.binary(BinaryOp.DIV, a, l, b, l), 4), 0);
        assertFloats(new float[] {216, 16, 1.4142135f, INF}, floats(backend, backend.binary(BinaryOp.POW, a, l, b, l), 4), 1e-5f);
    }

    @Test
    void should_propagate_nan_through_maximum_and_minimum() {
        Storage a = f32(backend, 1, NAN, 5, -1);
        Storage b = f32(backend, 2, 0, NAN, -3);
        Layout l = Layout.contiguous(4);
        assertFloats(new float[] {2, NAN, NAN, -1}, floats(backend, backend.binary(BinaryOp.MAXIMUM, a, l, b, l), 4), 0);
        assertFloats(new float[] {1, NAN, NAN, -3}, floats(backend, backend.binary(BinaryOp.MINIMUM, a, l, b, l), 4), 0);
    }

    @Test
    void should_give_float_masks_for_comparisons() {
        Storage a = f32(backend, 1, 2, 3, NAN);
        Storage b = f32(backend, 2, 2, 2, NAN);
        Layout l = Layout.contiguous(4);
        assertFloats(new float[] {0, 1, 0, 0}, floats(backend, backend.binary(BinaryOp.EQ, a, l, b, l), 4), 0);
        assertFloats(new float[] {1, 0, 1, 1}, floats(backend, backend.binary(BinaryOp.NE, a, l, b, l), 4), 0);
        assertFloats(new float[] {1, 0, 0, 0}, floats(backend, backend.binary(BinaryOp.LT, a, l, b, l), 4), 0);
        assertFloats(new float[] {1, 1, 0, 0}, floats(backend, backend.binary(BinaryOp.LE, a, l, b, l), 4), 0);
        assertFloats(new float[] {0, 0, 1, 0}, floats(backend, backend.binary(BinaryOp.GT, a, l, b, l), 4), 0);
        assertFloats(new float[] {0, 1, 1, 0}, floats(backend, backend.binary(BinaryOp.GE, a, l, b, l), 4), 0);
    }

    @Test
    void should_broadcast_through_stride_zero_layouts() {
        Storage a = f32(backend, 1, 2, 3, 4, 5, 6);
        Layout l = Layout.contiguous(2, 3);
        Storage row = f32(backend, 10, 20, 30);
        Layout rowB = new Layout(new int[] {2, 3}, new int[] {0, 1}, 0);
        assertFloats(new float[] {11, 22, 33, 14, 25, 36},
                floats(backend, backend.binary(BinaryOp.ADD, a, l, row, rowB), 2, 3), 0);
        Storage col = f32(backend, 100, 200);
        Layout colB = new Layout(new int[] {2, 3}, new int[] {1, 0}, 0);
        assertFloats(new float[] {100, 200, 300, 800, 1000, 1200},
                floats(backend, backend.binary(BinaryOp.MUL, a, l, col, colB), 2, 3), 0);
    }

    @Test
    void should_read_transposed_and_offset_inputs() {
        // storage (2,3) = [[1,2,3],[4,5,6]]; its transpose is [[1,4],[2,5],[3,6]]
        Storage a = f32(backend, 1, 2, 3, 4, 5, 6);
        Layout t = Layout.contiguous(2, 3).transpose(0, 1);
        assertFloats(new float[] {-1, -4, -2, -5, -3, -6}, floats(backend, backend.unary(UnaryOp.NEG, a, t), 3, 2), 0);
        Layout tail = Layout.contiguous(2, 3).narrow(1, 1, 2); // [[2,3],[5,6]]
        assertFloats(new float[] {4, 9, 25, 36}, floats(backend, backend.unary(UnaryOp.SQUARE, a, tail), 2, 2), 0);
    }

    @Test
    void should_pick_with_where() {
        Layout l = Layout.contiguous(4);
        Storage a = f32(backend, 1, 2, 3, 4), b = f32(backend, -1, -2, -3, -4);
        assertFloats(new float[] {1, -2, 3, 4},
                floats(backend, backend.where(f32(backend, 1, 0, NAN, -0.5f), l, a, l, b, l), 4), 0);
        assertFloats(new float[] {-1, 2, -3, 4},
                floats(backend, backend.where(i32(backend, 0, 7, 0, -1), l, a, l, b, l), 4), 0);
    }

    @Test
    void should_reject_non_float_inputs_naming_op_and_dtype() {
        Storage ints = i32(backend, 1, 2);
        var e = assertThrows(IllegalArgumentException.class,
                () -> backend.unary(UnaryOp.EXP, ints, Layout.contiguous(2)));
        assertTrue(e.getMessage().contains("EXP") && e.getMessage().contains("int32"), e.getMessage());
        var e2 = assertThrows(IllegalArgumentException.class,
                () -> backend.binary(BinaryOp.ADD, f32(backend, 1, 2), Layout.contiguous(2), ints, Layout.contiguous(2)));
        assertTrue(e2.getMessage().contains("ADD") && e2.getMessage().contains("int32"), e2.getMessage());
    }

    @Test
    void should_reject_a_layout_that_overruns_its_storage() {
        Storage a = f32(backend, 1, 2, 3);
        var e = assertThrows(IllegalArgumentException.class,
                () -> backend.unary(UnaryOp.NEG, a, new Layout(new int[] {3}, new int[] {1}, 1)));
        assertTrue(e.getMessage().contains("NEG"), e.getMessage());
    }
}
