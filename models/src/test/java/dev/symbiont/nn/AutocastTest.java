package dev.symbiont.nn;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.memory.MemoryMeasure;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class AutocastTest {
    @Test
    void should_multiply_low_precision_operands_into_a_float32_result_close_to_float32() {
        for (DType low : new DType[] {DType.BFLOAT16, DType.FLOAT16}) {
            Tensor a = Tensor.randn(new Generator(1), 3, 16, 32).requiresGrad(true);
            Tensor b = Tensor.randn(new Generator(2), 32, 8).requiresGrad(true);
            Tensor exact = a.matmul(b);
            exact.sum().backward();
            float[] gaExact = a.grad().toFloatArray(), gbExact = b.grad().toFloatArray();
            a.zeroGrad();
            b.zeroGrad();
            Tensor mixed;
            try (var scope = Autocast.enable(low)) {
                mixed = a.matmul(b);
            }
            assertEquals(DType.FLOAT32, mixed.dtype());
            double tol = low == DType.BFLOAT16 ? 0.15 : 0.02;  // products of 32 terms of magnitude ~1
            assertClose(exact.toFloatArray(), mixed.toFloatArray(), tol, low + " forward");
            mixed.sum().backward();
            assertEquals(DType.FLOAT32, a.grad().dtype(), "the float32 master gets a float32 gradient");
            assertClose(gaExact, a.grad().toFloatArray(), tol, low + " grad a");
            assertClose(gbExact, b.grad().toFloatArray(), tol * 3, low + " grad b");
            assertFalse(java.util.Arrays.equals(exact.toFloatArray(), mixed.toFloatArray()), "operands were really rounded");
        }
    }

    @Test
    void should_lower_the_memory_kept_for_backward() {
        Sequential plain = CheckpointTest.stack(4, 128, 0, false);
        Tensor x = Tensor.randn(new Generator(1), 1024, 128);
        long f32 = MemoryMeasure.retainedBy(Backends.current(), () -> plain.forward(x).square().mean());
        long bf16 = MemoryMeasure.retainedBy(Backends.current(), () -> {
            try (var scope = Autocast.enable(DType.BFLOAT16)) {
                return plain.forward(x).square().mean();
            }
        });
        // Per block the float32 run keeps LayerNorm's input, the up-projection's input, GELU's input
        // and the down-projection's input: 1 + 1 + 4 + 4 = 10 units; autocast halves the two matmul
        // inputs (1 + 0.5 + 4 + 2 = 7.5) and adds a bfloat16 copy of each weight.
        assertTrue(bf16 < 0.85 * f32, "autocast keeps " + bf16 + " bytes vs float32 " + f32);
    }

    @Test
    void should_reject_a_dtype_that_is_not_half_precision() {
        var e = assertThrows(IllegalArgumentException.class, () -> Autocast.enable(DType.INT32));
        assertTrue(e.getMessage().toLowerCase().contains("int32"), e.getMessage());
    }

    private static void assertClose(float[] expected, float[] actual, double tol, String what) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], tol * Math.max(1, Math.abs(expected[i])), what + " at " + i);
        }
    }
}
