package dev.symbiont.core.distributed;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.function.Executable;

import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input to a collective, rejected on the calling rank before anything is exchanged (so every
 * rank can run these checks without the others), with an {@link IllegalArgumentException} that
 * names the collective and what is wrong.
 */
final class BadCollectiveInputs {
    private BadCollectiveInputs() {}

    static List<CollectiveCheck> all() {
        return List.of(
                new CollectiveCheck("a non-contiguous tensor is refused", (c, shared) -> {
                    Tensor transposed = Tensor.zeros(2, 3).t();
                    throwsMentioning(() -> c.allReduce(transposed, Reduction.SUM), "allReduce", "contiguous", "[3, 2]");
                    throwsMentioning(() -> c.broadcast(transposed, 0), "broadcast", "contiguous");
                    throwsMentioning(() -> c.allGather(transposed, Tensor.zeros(6 * c.size())), "allGather", "input", "contiguous");
                }),
                new CollectiveCheck("a bfloat16 tensor is refused", (c, shared) -> {
                    Tensor half = Tensor.zeros(4).to(DType.BFLOAT16);
                    throwsMentioning(() -> c.allReduce(half, Reduction.SUM), "allReduce", "bfloat16");
                    throwsMentioning(() -> c.broadcast(half, 0), "broadcast", "bfloat16");
                    throwsMentioning(() -> c.reduceScatter(Tensor.zeros(4 * c.size()), half, Reduction.SUM), "reduceScatter", "output", "bfloat16");
                }),
                new CollectiveCheck("sizes that do not match the group are refused", (c, shared) -> {
                    int wrong = 3 * c.size() + 1;
                    throwsMentioning(() -> c.allGather(Tensor.zeros(3), Tensor.zeros(wrong)), "allGather", String.valueOf(wrong), String.valueOf(3 * c.size()));
                    throwsMentioning(() -> c.reduceScatter(Tensor.zeros(wrong), Tensor.zeros(3), Reduction.SUM), "reduceScatter", String.valueOf(wrong));
                    throwsMentioning(() -> c.allGather(Tensor.zeros(3), Tensor.full(0, DType.INT32, 3 * c.size())), "allGather", "dtypes", "int32");
                }),
                new CollectiveCheck("a root outside the group is refused", (c, shared) -> {
                    throwsMentioning(() -> c.broadcast(Tensor.zeros(3), c.size()), "broadcast", "root " + c.size(), "group of " + c.size());
                    throwsMentioning(() -> c.broadcast(Tensor.zeros(3), -1), "broadcast", "root -1");
                }),
                new CollectiveCheck("AVG of integers is refused", (c, shared) -> {
                    throwsMentioning(() -> c.allReduce(Tensor.full(1, DType.INT32, 3), Reduction.AVG), "allReduce", "AVG", "int32");
                    throwsMentioning(() -> c.reduceScatter(Tensor.full(1, DType.INT64, 2 * c.size()), Tensor.full(1, DType.INT64, 2), Reduction.AVG),
                            "reduceScatter", "AVG", "int64");
                }),
                new CollectiveCheck("a null host array or reduction is refused", (c, shared) -> {
                    throwsMentioning(() -> c.allReduce((double[]) null, Reduction.SUM), "allReduce");
                    throwsMentioning(() -> c.allReduce(new double[1], null), "allReduce");
                    throwsMentioning(() -> c.allReduce(Tensor.zeros(2), null), "allReduce", "reduction");
                }));
    }

    private static void throwsMentioning(Executable body, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, body);
        String msg = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        for (String f : fragments) assertTrue(msg.contains(f.toLowerCase(Locale.ROOT)), "message '" + e.getMessage() + "' does not mention '" + f + "'");
    }
}
