package dev.symbiont.core;

import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tensor holds at most 2^31 − 1 elements: every size computation that would pass it throws an
 * IllegalArgumentException naming the op and the shape, and never wraps to a small or negative
 * size. The large shapes here are broadcast views or never allocated, so nothing big is made.
 */
class SizeLimitTest {
    /** 16 × 4096 × 128k logits: 8 589 934 592 elements. */
    private static final int[] LOGITS = {16, 4096, 131072};
    private static final int BIG = 65536;

    private static void throwsNaming(Executable body, String op, String... fragments) {
        var e = assertThrows(IllegalArgumentException.class, body);
        assertTrue(e.getMessage().startsWith(op + ":"), "message '" + e.getMessage() + "' does not start with " + op);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "message '" + e.getMessage() + "' lacks '" + f + "'");
    }

    /** A (1, 1) zero tensor broadcast to {@code shape}: no memory, any size. */
    private static Tensor broadcast(int... shape) { return Tensor.zeros(1, 1).expand(shape); }

    @Test
    void should_name_the_op_and_shape_when_creating_a_tensor_past_the_limit() {
        throwsNaming(() -> Tensor.zeros(LOGITS), "full", "[16, 4096, 131072]", "8589934592", "2^31 - 1");
        throwsNaming(() -> Tensor.randn(new Generator(1), BIG, BIG), "randn", "[65536, 65536]", "4294967296");
        throwsNaming(() -> Tensor.arange(0, 3e9, 1, DType.FLOAT32), "arange", "2^31 - 1");
    }

    @Test
    void should_check_the_product_of_a_shape_in_long_never_wrapping() {
        // 2^16 · 2^16 · 2^16 wraps to 0 in int, and 2^32 · 2^32 to 0 in long only past 2^64.
        throwsNaming(() -> Layout.numel("numel", new int[] {BIG, BIG, BIG}), "numel", "281474976710656");
        throwsNaming(() -> new Layout(new int[] {BIG, BIG}, new int[] {0, 0}, 0), "layout", "[65536, 65536]");
        assertEquals(0, Layout.numel("numel", new int[] {BIG, BIG, 0}), "an empty dim makes any shape empty");
        assertEquals(Integer.MAX_VALUE, Layout.numel("numel", new int[] {Integer.MAX_VALUE, 1}));
    }

    @Test
    void should_name_the_view_op_whose_result_would_pass_the_limit() {
        throwsNaming(() -> broadcast(BIG, BIG), "expand", "[65536, 65536]");
        throwsNaming(() -> Tensor.zeros(2, 2).reshape(-1, BIG, BIG), "reshape", "[-1, 65536, 65536]");
        throwsNaming(() -> Tensor.zeros(2, 2).view(BIG, BIG, BIG), "view");
    }

    @Test
    void should_name_the_op_whose_output_would_pass_the_limit() {
        Tensor wide = broadcast(1, 1 << 30);
        throwsNaming(() -> Tensor.cat(List.of(wide, wide, wide), 1), "cat", "3221225472");
        throwsNaming(() -> broadcast(BIG, 1).matmul(broadcast(1, BIG)), "matmul", "[65536, 65536]");
        throwsNaming(() -> Tensor.zeros(BIG, 1).add(Tensor.zeros(1, BIG)), "add", "[65536, 65536]");
        throwsNaming(() -> Tensor.zeros(BIG).to(DType.INT64).oneHot(BIG), "one_hot", "[65536, 65536]");
    }

    @Test
    void should_reject_a_heap_buffer_larger_than_a_java_array() {
        var backend = new ReferenceBackend();
        throwsNaming(() -> backend.allocate(DType.FLOAT32, 8_589_934_592L), "allocate", "8589934592", "float32");
        throwsNaming(() -> backend.full(DType.INT64, 1L << 31, 0), "full", "2147483648");
        throwsNaming(() -> backend.allocate(DType.FLOAT32, -1), "allocate", "negative");
    }
}
