package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static dev.symbiont.core.DType.BFLOAT16;
import static dev.symbiont.core.DType.FLOAT16;
import static dev.symbiont.core.DType.FLOAT32;
import static dev.symbiont.core.DType.INT32;
import static dev.symbiont.core.DType.INT64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Comparisons across dtypes: PyTorch's promotion, exact integers, masks outside autograd. */
class ComparisonsTest {
    private static final long BIG = 1L << 40;

    private static float[] mask(float... v) { return v; }

    private static Tensor halves(DType type, float... values) { return Tensor.fromArray(values).to(type); }

    @Test
    void promoteTypesFollowsPyTorchsTableForEveryPair() {
        DType[] order = {FLOAT32, INT32, INT64, BFLOAT16, FLOAT16};
        // Row a, column b, from torch.promote_types.
        DType[][] expected = {
                {FLOAT32, FLOAT32, FLOAT32, FLOAT32, FLOAT32},
                {FLOAT32, INT32, INT64, BFLOAT16, FLOAT16},
                {FLOAT32, INT64, INT64, BFLOAT16, FLOAT16},
                {FLOAT32, BFLOAT16, BFLOAT16, BFLOAT16, FLOAT32},
                {FLOAT32, FLOAT16, FLOAT16, FLOAT32, FLOAT16}};
        for (int i = 0; i < order.length; i++) {
            for (int j = 0; j < order.length; j++) {
                assertEquals(expected[i][j], DType.promoteTypes(order[i], order[j]), order[i] + " with " + order[j]);
            }
        }
    }

    /** 1, 2, 3 (or 2, 2, 2) in any dtype: every dtype holds them exactly. */
    private static Tensor small(DType type, int... values) {
        return switch (type) {
            case INT32 -> Tensor.fromArray(values);
            case INT64 -> Tensor.fromArray(java.util.Arrays.stream(values).asLongStream().toArray());
            default -> halves(type, (float) values[0], (float) values[1], (float) values[2]);
        };
    }

    @Test
    void everyPairOfDtypesComparesInBothOrders() {
        for (DType ta : DType.values()) {
            for (DType tb : DType.values()) {
                Tensor a = small(ta, 1, 2, 3), b = small(tb, 2, 2, 2);
                String pair = ta + " with " + tb;
                assertArrayEquals(mask(0, 1, 0), a.eq(b).toFloatArray(), pair);
                assertArrayEquals(mask(1, 0, 1), a.ne(b).toFloatArray(), pair);
                assertArrayEquals(mask(1, 0, 0), a.lt(b).toFloatArray(), pair);
                assertArrayEquals(mask(1, 1, 0), a.le(b).toFloatArray(), pair);
                assertArrayEquals(mask(0, 0, 1), a.gt(b).toFloatArray(), pair);
                assertArrayEquals(mask(0, 1, 1), a.ge(b).toFloatArray(), pair);
                assertEquals(FLOAT32, a.eq(b).dtype(), pair);
            }
        }
    }

    @Test
    void int64ValuesPast2To24CompareExactly() {
        // 2^24 + 1 and 2^24 are one float32; 2^40 + 1 and 2^40 too.
        Tensor a = Tensor.fromArray(new long[] {16_777_217L, BIG + 1, -5, BIG});
        Tensor b = Tensor.fromArray(new long[] {16_777_216L, BIG + 1, -4, BIG + 1});
        assertArrayEquals(mask(0, 1, 0, 0), a.eq(b).toFloatArray());
        assertArrayEquals(mask(1, 0, 1, 1), a.ne(b).toFloatArray());
        assertArrayEquals(mask(0, 0, 1, 1), a.lt(b).toFloatArray());
        assertArrayEquals(mask(0, 1, 1, 1), a.le(b).toFloatArray());
        assertArrayEquals(mask(1, 0, 0, 0), a.gt(b).toFloatArray());
        assertArrayEquals(mask(1, 1, 0, 0), a.ge(b).toFloatArray());
    }

    @Test
    void int32MeetsInt64WithoutWrapping() {
        Tensor a = Tensor.fromArray(new int[] {Integer.MAX_VALUE, -1, 7});
        Tensor b = Tensor.fromArray(new long[] {Integer.MAX_VALUE + 1L, -1, 7 + (1L << 32)});
        assertArrayEquals(mask(1, 0, 1), a.lt(b).toFloatArray());
        assertArrayEquals(mask(0, 1, 0), b.eq(a).toFloatArray());
        assertEquals(FLOAT32, a.lt(b).dtype());
    }

    @Test
    void integerAndFloatMeetInTheFloatTypeRoundingAsPyTorchDoes() {
        // int64 with float32 promotes to float32: 2^24 + 1 rounds to 2^24 (torch gives True too).
        assertArrayEquals(mask(1, 0), Tensor.fromArray(new long[] {16_777_217L, 3})
                .eq(Tensor.fromArray(new float[] {16_777_216f, 3.5f})).toFloatArray());
        // int64 with bfloat16 promotes to bfloat16: 257 rounds to 256 (ties to even).
        assertArrayEquals(mask(1, 0), Tensor.fromArray(new long[] {257, 259})
                .eq(halves(BFLOAT16, 256f, 256f)).toFloatArray());
        assertArrayEquals(mask(0, 1), Tensor.fromArray(new int[] {2, 3})
                .gt(halves(FLOAT16, 2.5f, 2.5f)).toFloatArray());
    }

    @Test
    void halvesMeetInFloat32() {
        // bf16(0.1) = 0.10009765625, f16(0.1) = 0.0999755859375: float32 holds both, and they differ.
        Tensor b = halves(BFLOAT16, 0.1f, 1.5f), h = halves(FLOAT16, 0.1f, 1.5f);
        assertArrayEquals(mask(1, 0), b.gt(h).toFloatArray());
        assertArrayEquals(mask(0, 1), b.eq(h).toFloatArray());
        // f16 with float32 promotes to float32: f16(0.1) < 0.1f.
        assertArrayEquals(mask(1, 0), h.lt(Tensor.fromArray(new float[] {0.1f, 1.5f})).toFloatArray());
    }

    @Test
    void scalarsCompareAsPythonNumbersDo() {
        Tensor ids = Tensor.fromArray(new long[] {BIG + 1, (1L << 60) + 1, 3});
        assertArrayEquals(mask(1, 0, 0), ids.eq(BIG + 1).toFloatArray());
        assertArrayEquals(mask(0, 1, 0), ids.gt(1L << 60).toFloatArray(), "past 2^53 the scalar is not a double");
        assertArrayEquals(mask(0, 0, 1), ids.eq(3.0).toFloatArray());
        assertArrayEquals(mask(1, 1, 1), ids.gt(2.5).toFloatArray());
        assertArrayEquals(mask(0, 0, 1), ids.lt(3.5).toFloatArray());
        Tensor small = Tensor.fromArray(new int[] {1, -1});
        assertArrayEquals(mask(1, 1), small.lt(1L << 33).toFloatArray(), "no int32 wrap of 2^33");
        assertArrayEquals(mask(0, 1), small.le(-1).toFloatArray());
        assertArrayEquals(mask(1, 0), small.ne(-1).toFloatArray());
        // A floating tensor keeps its dtype: 0.1 is rounded to bfloat16 before the comparison.
        assertArrayEquals(mask(1), halves(BFLOAT16, 0.1f).eq(0.1).toFloatArray());
        assertArrayEquals(mask(0), Tensor.fromArray(new float[] {0.1f}).eq(0.1f + 1e-7).toFloatArray());
    }

    @Test
    void zeroDimTensorsCountOnlyAcrossACategory() {
        Tensor scalar = Tensor.scalar(0.1f);
        Tensor h = halves(FLOAT16, 0.1f);
        assertEquals(FLOAT16, Comparisons.resultType(h, scalar));
        assertArrayEquals(mask(1), h.eq(scalar).toFloatArray(), "0.1f is rounded to float16 first");
        Tensor ids = Tensor.fromArray(new long[] {2, 3});
        assertEquals(FLOAT32, Comparisons.resultType(ids, Tensor.scalar(2.5f)));
        assertArrayEquals(mask(0, 1), ids.gt(Tensor.scalar(2.5f)).toFloatArray());
        assertEquals(FLOAT32, Comparisons.resultType(h, Tensor.fromArray(new float[] {0.1f})), "both dimensioned");
    }

    @Test
    void accuracyCountsCorrectPredictionsLikePyTorch() {
        Tensor logits = Tensor.fromArray(new float[] {
                0.1f, 2f, 0.3f,
                5f, 1f, 0f,
                0f, 0f, 9f,
                1f, 3f, 2f}, 4, 3);
        Tensor labels = Tensor.fromArray(new long[] {1, 0, 0, 1});
        Tensor correct = logits.argmax(-1, false).eq(labels);
        assertEquals(3f, correct.sum().item());
        assertEquals(0.75f, correct.mean().item());
        assertEquals(3f, logits.argmax(-1, false).eq(Tensor.fromArray(new int[] {1, 0, 0, 1})).sum().item());
        assertArrayEquals(new long[] {1, 1, 0, 1}, correct.to(INT64).toLongArray());
    }

    @Test
    void comparisonsBroadcastIntegerOperands() {
        Tensor rows = Tensor.fromArray(new long[] {BIG, BIG + 1}, 2, 1);
        Tensor cols = Tensor.fromArray(new long[] {BIG, BIG + 1, BIG + 2}, 3);
        Tensor ge = rows.ge(cols);
        assertArrayEquals(new int[] {2, 3}, ge.shape());
        assertArrayEquals(mask(1, 0, 0, 1, 1, 0), ge.toFloatArray());
        // A transposed view of an int64 tensor.
        Tensor grid = Tensor.fromArray(new long[] {BIG, 1, 2, BIG + 1}, 2, 2).t();
        // (BIG, 2; 1, BIG+1) against the untransposed order: only the diagonal agrees.
        assertArrayEquals(mask(1, 0, 0, 1), grid.eq(Tensor.fromArray(new long[] {BIG, 1, 2, BIG + 1}, 2, 2)).toFloatArray());
    }

    @Test
    void comparisonsAreOutsideAutograd() {
        Tensor x = Tensor.fromArray(new float[] {-1f, 2f, 0f, 3f}).requiresGrad(true);
        Tensor positive = x.gt(0.0);
        assertFalse(positive.requiresGrad());
        assertNull(positive.gradFn());
        assertFalse(x.lt(x.mul(2.0)).requiresGrad(), "a comparison of two graph tensors is a constant too");
        x.mul(positive).sum().backward();
        assertArrayEquals(mask(0, 1, 0, 1), x.grad().toFloatArray());
    }

    @Test
    void badOperandsAreNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> Tensor.fromArray(new long[] {1, 2, 3}).eq(Tensor.fromArray(new int[] {1, 2})));
        assertTrue(e.getMessage().contains("eq") && e.getMessage().contains("[3]") && e.getMessage().contains("[2]"), e.getMessage());
        var notComparison = assertThrows(IllegalArgumentException.class,
                () -> Comparisons.compare(dev.symbiont.core.backend.BinaryOp.ADD, Tensor.ones(2), Tensor.ones(2)));
        assertTrue(notComparison.getMessage().contains("add"), notComparison.getMessage());
    }
}
