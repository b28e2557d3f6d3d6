package dev.symbiont.core;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.ops.Indexing;
import dev.symbiont.core.ops.Linalg;
import dev.symbiont.core.ops.Losses;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input gets a clear error naming the op and what disagrees, never a wrong answer. */
class BadInputTest {

    /** Asserts that {@code body} throws {@code type} with a message containing every fragment. */
    private static <T extends Throwable> T throwsMentioning(Class<T> type, Executable body, String... fragments) {
        T e = assertThrows(type, body);
        String msg = e.getMessage();
        assertTrue(msg != null, type.getSimpleName() + " without a message");
        String norm = msg.toLowerCase(Locale.ROOT).replace("_", "");
        for (String f : fragments) {
            assertTrue(norm.contains(f.toLowerCase(Locale.ROOT).replace("_", "")), "message '" + msg + "' does not mention '" + f + "'");
        }
        return e;
    }

    private static Tensor randn(int... shape) { return Tensor.randn(new Generator(1), shape); }

    // ---- shapes ---------------------------------------------------------------------------------

    @Test
    void binaryOpOnShapesThatCannotBroadcastNamesTheOpAndBothShapes() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).add(randn(4)), "add", "[2, 3]", "[4]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(5, 1, 3).mul(randn(2, 2)), "mul", "[5, 1, 3]", "[2, 2]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(3).lt(randn(2)), "lt", "[3]", "[2]");
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.where(randn(3), randn(3), randn(4)), "where", "[4]");
    }

    @Test
    void matmulWithMismatchedInnerSizesNamesBothShapes() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(3, 4).matmul(randn(5, 2)), "matmul", "[3, 4]", "[5, 2]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(4).matmul(randn(3)), "matmul", "[4]", "[3]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3, 4).matmul(randn(3, 4, 5)), "matmul", "[2, 3, 4]", "[3, 4, 5]");
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.scalar(2).matmul(randn(3)), "matmul");
        throwsMentioning(IllegalArgumentException.class, () -> Linalg.mixedMatmul(randn(3), randn(3, 2).to(DType.BFLOAT16)),
                "matmul", "mixed", "[3]", "bfloat16 [3, 2]");
        throwsMentioning(IllegalArgumentException.class, () -> Linalg.mixedMatmul(randn(2, 3), Tensor.fromArray(new int[] {1, 2, 3}).reshape(3, 1)),
                "matmul", "mixed", "int32 [3, 1]");
    }

    @Test
    void reshapeAndViewToAnIncompatibleSizeThrow() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).reshape(4, 2), "reshape", "[4, 2]", "[2, 3]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).view(7), "view", "[7]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).reshape(-1, -1), "reshape", "-1");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).reshape(-1, 4), "reshape", "[-1, 4]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).reshape(-2, 3), "reshape", "-2");
    }

    @Test
    void viewOnATransposedTensorThrowsNamingViewAndPointingToReshape() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).t().view(6), "view", "[3, 2]", "reshape");
        // reshape copies instead.
        assertTrue(randn(2, 3).t().reshape(6).isContiguous());
    }

    @Test
    void dimsOutOfRangeThrowNamingTheOp() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).sum(2, false), "sum", "dim 2", "[2, 3]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).sum(-3, true), "sum", "-3");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).sum(new int[] {1, -1}, true), "sum", "repeated");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).softmax(2), "softmax", "dim 2");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).logSoftmax(-3), "log_softmax");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).permute(0, 2), "permute", "2");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).permute(0), "permute");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).permute(1, 1), "permute", "repeated");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).narrow(2, 0, 1), "narrow", "dim 2");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).narrow(1, 2, 2), "narrow", "size 3");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).argmax(5, false), "argmax");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).cumsum(2), "cumsum");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).transpose(0, 3), "transpose");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).squeeze(1), "squeeze", "size 3");
        throwsMentioning(IndexOutOfBoundsException.class, () -> randn(2, 3).select(1, 3), "select", "3");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).expand(2, 4), "expand", "[2, 4]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).slice(1, 0, 3, 0), "slice", "step");
    }

    @Test
    void joiningMismatchedShapesThrows() {
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.cat(List.of(randn(2, 3), randn(2, 4)), 0), "cat", "[2, 4]");
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.cat(List.of(), 0), "cat");
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.stack(List.of(randn(2, 3), randn(3, 2)), 0), "stack", "[3, 2]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(4).split(0, 0), "split");
        throwsMentioning(IllegalArgumentException.class, () -> randn(4).chunk(0, 0), "chunk");
    }

    @Test
    void normsAndLossesRejectMismatchedShapes() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).layerNorm(new int[] {4}, null, null, 1e-5), "layer_norm", "[4]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).layerNorm(new int[] {3}, randn(4), null, 1e-5), "layer_norm", "[4]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).rmsNorm(new int[] {2}, null, 1e-5), "rms_norm");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).mseLoss(randn(3, 2)), "mse_loss", "[2, 3]", "[3, 2]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).crossEntropy(Tensor.fromArray(new long[] {0, 1, 2})), "cross_entropy", "[2]");
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 3).topk(4, 1, true), "topk", "k=4");
    }

    @Test
    void indexingRejectsIndexTensorsOfTheWrongShapeOrType() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(4, 3).indexSelect(0, Tensor.fromArray(new long[] {0, 1}, 1, 2)), "index_select", "1-D");
        throwsMentioning(IllegalArgumentException.class, () -> randn(4, 3).indexSelect(0, randn(2)), "index_select", "float32");
        throwsMentioning(IllegalArgumentException.class, () -> randn(4, 3).gather(1, Tensor.fromArray(new long[] {0, 1}, 2)), "gather", "rank");
        throwsMentioning(IllegalArgumentException.class,
                () -> randn(4, 3).scatterAdd(0, Tensor.fromArray(new long[] {0, 1}, 1, 2), randn(2, 1)), "scatter_add", "[1, 2]", "[2, 1]");
    }

    // ---- index values -----------------------------------------------------------------------------

    @Test
    void outOfRangeIndicesThrowIndexOutOfBoundsNamingTheOp() {
        Tensor x = randn(4, 3);
        Tensor bad = Tensor.fromArray(new long[] {0, 4});
        Tensor negative = Tensor.fromArray(new long[] {-1, 0});
        assertIndexError(() -> x.indexSelect(0, bad), "index_select");
        assertIndexError(() -> x.indexSelect(0, negative), "index_select");
        assertIndexError(() -> x.indexSelect(1, Tensor.fromArray(new int[] {3}, 1)), "index_select");
        assertIndexError(() -> x.gather(1, Tensor.fromArray(new long[] {0, 3}, 1, 2)), "gather");
        assertIndexError(() -> x.gather(0, Tensor.fromArray(new long[] {-1}, 1, 1)), "gather");
        assertIndexError(() -> x.scatterAdd(0, Tensor.fromArray(new long[] {4}, 1, 1), randn(1, 1)), "scatter_add");
        assertIndexError(() -> x.scatterAdd(1, Tensor.fromArray(new long[] {-2}, 1, 1), randn(1, 1)), "scatter_add");
        assertIndexError(() -> Indexing.embedding(x, Tensor.fromArray(new long[] {1, 9}, 1, 2)), "embedding");
        assertIndexError(() -> Indexing.oneHot(Tensor.fromArray(new long[] {0, 5}), 5), "one_hot");
        assertIndexError(() -> Indexing.oneHot(Tensor.fromArray(new long[] {-1}), 5), "one_hot");
        assertIndexError(() -> x.crossEntropy(Tensor.fromArray(new long[] {0, 1, 2, 3})), "cross_entropy");
        assertIndexError(() -> Losses.crossEntropy(x, Tensor.fromArray(new long[] {0, -1, 2, 0}), -100), "cross_entropy");
    }

    private static void assertIndexError(Executable body, String op) {
        Throwable e = throwsMentioning(IndexOutOfBoundsException.class, body, op);
        assertTrue(!(e instanceof ArrayIndexOutOfBoundsException), "raw array index error: " + e);
    }

    // ---- dtypes -------------------------------------------------------------------------------------

    @Test
    void floatOpsOnIntegerTensorsThrowNamingTheDtypeAndTheFix() {
        Tensor ints = Tensor.fromArray(new long[] {1, 2, 3});
        throwsMentioning(IllegalArgumentException.class, ints::exp, "exp", "int64", "to(DType.FLOAT32)");
        throwsMentioning(IllegalArgumentException.class, () -> ints.add(randn(3)), "add", "int64");
        throwsMentioning(IllegalArgumentException.class, ints::sum, "sum", "int64");
        throwsMentioning(IllegalArgumentException.class, () -> ints.softmax(0), "softmax", "int64");
        throwsMentioning(IllegalArgumentException.class, () -> randn(3, 3).matmul(Tensor.fromArray(new int[] {1, 2, 3})), "matmul", "int32");
        throwsMentioning(IllegalArgumentException.class, () -> randn(3).to(DType.BFLOAT16).exp(), "exp", "bfloat16");
    }

    // ---- backends -----------------------------------------------------------------------------------

    @Test
    void tensorsOnTwoDifferentBackendsThrowAndSayHowToMoveOne() {
        Backend first = new ReferenceBackend(), second = new ReferenceBackend();
        Tensor a, b, idx;
        try (var s = Backends.use(first)) { a = randn(2, 3); }
        try (var s = Backends.use(second)) { b = randn(2, 3); idx = Tensor.fromArray(new long[] {0}); }
        throwsMentioning(IllegalArgumentException.class, () -> a.add(b), "add", "different backends", "to(");
        throwsMentioning(IllegalArgumentException.class, () -> a.t().matmul(b), "matmul", "different backends", "to(");
        throwsMentioning(IllegalArgumentException.class, () -> a.indexSelect(0, idx), "index_select", "different backends");
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.cat(List.of(a, b), 0), "cat", "different backends");
        // Moving one over makes it work, and the result lives on the first backend.
        Tensor sum = a.add(b.to(first));
        assertTrue(sum.backend() == first);
    }

    @Test
    void unknownBackendNameListsTheBackendsFound() {
        throwsMentioning(IllegalArgumentException.class, () -> Backends.get("nope"), "nope", "found", "reference");
    }

    // ---- misc ---------------------------------------------------------------------------------------

    @Test
    void itemOnAMultiElementTensorThrowsWithTheShape() {
        throwsMentioning(IllegalArgumentException.class, () -> randn(2, 2).item(), "item", "[2, 2]", "4");
        throwsMentioning(IllegalArgumentException.class, () -> randn(0).item(), "item", "0");
    }

    @Test
    void creationRejectsNegativeShapesAndWrongLengths() {
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.zeros(2, -1), "negative", "[2, -1]");
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.fromArray(new float[] {1, 2, 3}, 2, 2), "3", "[2, 2]");
        throwsMentioning(IllegalArgumentException.class, () -> Tensor.arange(0, 5, 0, DType.FLOAT32), "arange", "step");
        throwsMentioning(IllegalArgumentException.class, () -> randn(3).clamp(1, 0), "clamp");
    }
}
