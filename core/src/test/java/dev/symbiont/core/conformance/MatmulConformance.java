package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.ops.Linalg;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * matmul in every torch.matmul form, with transposed operands and tile-edge shapes, against the
 * reference; and the low-precision matmul of the SPI (bfloat16/float16 operands, float32
 * accumulation and result) directly and through autocast.
 */
public abstract class MatmulConformance extends ConformanceBase {

    @ParameterizedTest(name = "({0}x{1}) @ ({1}x{2})")
    @CsvSource({"1,1,1", "1,7,1", "3,1,5", "7,13,3", "17,33,9", "16,16,16", "31,32,33", "64,65,66", "65,64,63", "1,129,33"})
    void matmulMatchesReferenceAroundTileEdges(int m, int k, int n) {
        assertMatchesReference("matmul " + m + "x" + k + "x" + n, in -> in.randn(m, k).matmul(in.randn(k, n)),
                matmulTolerance(k), matmulTolerance(Math.max(m, n)));
    }

    @ParameterizedTest(name = "transposeA={0} transposeB={1}")
    @CsvSource({"false,true", "true,false", "true,true"})
    void matmulMatchesReferenceWithTransposedOperands(boolean ta, boolean tb) {
        int m = 17, k = 33, n = 9;
        assertMatchesReference("matmul transposed", in -> {
            Tensor a = ta ? in.transposed(m, k) : in.randn(m, k);
            Tensor b = tb ? in.transposed(k, n) : in.randn(k, n);
            return a.matmul(b);
        }, matmulTolerance(k), matmulTolerance(33));
    }

    @Test
    void matmulMatchesReferenceOnStridedAndExpandedOperands() {
        assertMatchesReference("matmul strided", in -> in.strided(9, 13).matmul(in.strided(13, 7)), matmulTolerance(13));
        assertMatchesReference("matmul permuted batch", in -> in.permuted(3, 5, 7).matmul(in.expanded(3, 7, 4)), matmulTolerance(7));
    }

    @Test
    void batchedMatmulMatchesReference() {
        assertMatchesReference("batched", in -> in.randn(4, 7, 13).matmul(in.randn(4, 13, 5)), matmulTolerance(13));
        assertMatchesReference("batched rank 4", in -> in.randn(2, 3, 5, 6).matmul(in.transposed(2, 3, 6, 4)), matmulTolerance(6));
    }

    @Test
    void broadcastBatchMatmulMatchesReferenceAndSumsGradientsOverTheBroadcastDims() {
        assertMatchesReference("broadcast rhs", in -> in.randn(3, 4, 7, 5).matmul(in.randn(5, 6)), matmulTolerance(5), matmulTolerance(84));
        assertMatchesReference("broadcast both", in -> in.randn(3, 1, 7, 5).matmul(in.randn(4, 5, 6)), matmulTolerance(5), matmulTolerance(28));
        assertMatchesReference("broadcast lhs", in -> in.randn(7, 5).matmul(in.randn(2, 5, 3)), matmulTolerance(5), matmulTolerance(6));
    }

    @Test
    void matmulWithOneDimensionalOperandsMatchesReference() {
        assertMatchesReference("vector dot", in -> in.randn(33).matmul(in.randn(33)), matmulTolerance(33));
        assertMatchesReference("vector @ matrix", in -> in.randn(13).matmul(in.randn(13, 7)), matmulTolerance(13));
        assertMatchesReference("matrix @ vector", in -> in.randn(7, 13).matmul(in.randn(13)), matmulTolerance(13));
        assertMatchesReference("batched @ vector", in -> in.randn(3, 7, 13).matmul(in.strided(13)), matmulTolerance(13), matmulTolerance(21));
        assertMatchesReference("vector @ batched", in -> in.randn(13).matmul(in.randn(3, 13, 7)), matmulTolerance(13), matmulTolerance(21));
    }

    @Test
    void matmulWithZeroInnerSizeGivesZerosLikeReference() {
        assertMatchesReference("k=0", in -> in.randn(3, 0).matmul(in.randn(0, 4)), EXACT);
    }

    @Test
    void largeMatmulMatchesReference() {
        assertMatchesReference("130x257x200", in -> in.randn(130, 257).matmul(in.transposed(257, 200)),
                matmulTolerance(257), matmulTolerance(200));
    }

    // ---- low precision ---------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} a {1}, b {2}")
    @CsvSource({"BFLOAT16,contiguous,contiguous", "BFLOAT16,transposed,strided", "BFLOAT16,expanded,transposed",
            "FLOAT16,contiguous,transposed", "FLOAT16,strided,expanded", "FLOAT16,transposed,transposed"})
    void lowPrecisionMatmulMatchesReferenceOnStridedAndBroadcastOperands(DType low, String aStyle, String bStyle) {
        int m = 17, k = 33, n = 9;
        assertMatchesReference("matmul " + low, in -> spiMatmul(lowView(in, low, aStyle, m, k), lowView(in, low, bStyle, k, n)),
                matmulTolerance(k));
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void mixedPrecisionMatmulMatchesReference(DType low) {
        assertMatchesReference("float32 @ " + low, in -> spiMatmul(in.constant(3, 7, 13), lowView(in, low, "transposed", 13, 5)),
                matmulTolerance(13));
        assertMatchesReference(low + " @ float32", in -> spiMatmul(lowView(in, low, "expanded", 7, 13), in.constant(3, 13, 5)),
                matmulTolerance(13));
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void autocastMatmulMatchesReferenceForwardAndBackward(DType low) {
        assertMatchesReference("autocast " + low, in -> {
            Tensor a = in.randn(2, 9, 33), b = in.transposed(33, 17);
            try (var scope = Autocast.enable(low)) {
                return a.matmul(b).matmul(in.randn(17, 5));
            }
        }, matmulTolerance(33), matmulTolerance(33 * 17));
    }

    /** The public mixed-precision product kernels use: a low operand and a float32 one, through views, with gradients. */
    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void mixedMatmulOfALowAndAFloat32OperandMatchesReference(DType low) {
        assertMatchesReference("mixedMatmul " + low, in -> {
            Tensor a = in.randn(2, 9, 33).to(low), b = in.transposed(33, 17);
            Tensor y = Linalg.mixedMatmul(a, b);
            assertEquals(DType.FLOAT32, y.dtype(), "a float32 result");
            return y;
        }, matmulTolerance(33), matmulTolerance(33 * 17));
    }

    /**
     * The same training step as autocast computed before the backend took low-precision
     * operands: float32 matmuls of operands rounded to {@code low} (a straight-through rounding,
     * so gradients pass unchanged), in one run on this backend.
     */
    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void autocastTrainingStepEqualsTheFloat32StepOnRoundedOperands(DType low) {
        try (var scope = Backends.use(backend())) {
            float[][] autocast = mlpStep(low, true), rounded = mlpStep(low, false);
            for (int i = 0; i < autocast.length; i++) {
                assertClose("autocast step, result " + i, rounded[i], autocast[i], matmulTolerance(64));
            }
        }
    }

    /** One SGD step of x → gelu(x·w1)·w2 → mean square on the current backend; returns the loss and both updated weights. */
    private static float[][] mlpStep(DType low, boolean autocast) {
        Generator g = new Generator(11);
        Tensor x = Tensor.randn(g, 2, 8, 16);
        Tensor w1 = Tensor.randn(g, 16, 64).mul(0.25).detach().requiresGrad(true);
        Tensor w2 = Tensor.randn(g, 64, 16).mul(0.125).detach().requiresGrad(true);
        Tensor loss;
        if (autocast) {
            try (var s = Autocast.enable(low)) {
                loss = x.matmul(w1).gelu().matmul(w2).square().mean();
            }
        } else {
            loss = round(round(x, low).matmul(round(w1, low)).gelu(), low).matmul(round(w2, low)).square().mean();
        }
        loss.backward();
        return new float[][] {loss.toFloatArray(), w1.sub(w1.grad().mul(0.1)).toFloatArray(), w2.sub(w2.grad().mul(0.1)).toFloatArray()};
    }

    /** t rounded to {@code low} and back, with the identity as gradient. */
    private static Tensor round(Tensor t, DType low) {
        return t.add(t.to(low).to(DType.FLOAT32).sub(t).detach());
    }

    /** The backend's matmul primitive on two rank-3 operands as they are (no autograd). */
    private static Tensor spiMatmul(Tensor a, Tensor b) {
        var storage = Backends.current().matmul(a.storage(), a.layout(), b.storage(), b.layout());
        return Tensor.of(storage, a.size(0), a.size(1), b.size(2));
    }

    /** A (3, rows, cols) operand in {@code low} seen through the given layout style (no autograd). */
    private static Tensor lowView(Inputs in, DType low, String style, int rows, int cols) {
        return switch (style) {
            case "contiguous" -> in.constant(3, rows, cols).to(low);
            case "transposed" -> in.constant(3, cols, rows).to(low).transpose(-2, -1);
            case "strided" -> in.constant(3, rows, 2 * cols + 1).to(low).slice(2, 1, 2 * cols + 1, 2);
            case "expanded" -> in.constant(1, rows, cols).to(low).expand(3, rows, cols);
            default -> throw new IllegalArgumentException("unknown layout " + style);
        };
    }
}
