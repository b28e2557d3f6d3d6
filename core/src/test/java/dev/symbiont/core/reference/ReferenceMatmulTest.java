package dev.symbiont.core.reference;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Storage;
import org.junit.jupiter.api.Test;

import static dev.symbiont.core.reference.Fixtures.assertFloats;
import static dev.symbiont.core.reference.Fixtures.f32;
import static dev.symbiont.core.reference.Fixtures.floats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReferenceMatmulTest {
    private final ReferenceBackend backend = new ReferenceBackend();

    // A = [[1,2],[3,4],[5,6]], B = [[7,8],[9,10]], A·B = [[25,28],[57,64],[89,100]]
    private static final float[] AB = {25, 28, 57, 64, 89, 100};

    @Test
    void should_multiply_contiguous_matrices() {
        Storage a = f32(backend, 1, 2, 3, 4, 5, 6), b = f32(backend, 7, 8, 9, 10);
        Storage c = backend.matmul(a, Layout.contiguous(3, 2), b, Layout.contiguous(2, 2));
        assertFloats(AB, floats(backend, c, 3, 2), 0);
    }

    @Test
    void should_multiply_transposed_operands_given_as_strides() {
        Storage aT = f32(backend, 1, 3, 5, 2, 4, 6);   // A^T stored (2,3)
        Storage bT = f32(backend, 7, 9, 8, 10);        // B^T stored (2,2)
        Layout a = Layout.contiguous(2, 3).transpose(0, 1);
        Layout b = Layout.contiguous(2, 2).permute(1, 0);
        assertFloats(AB, floats(backend, backend.matmul(aT, a, bT, b), 3, 2), 0);
    }

    @Test
    void should_broadcast_a_batch_dim_with_stride_zero() {
        // a: one A expanded over 2 batches; b: [B, I]
        Storage a = f32(backend, 1, 2, 3, 4, 5, 6);
        Layout aB = Layout.contiguous(3, 2).expand(2, 3, 2);
        Storage b = f32(backend, 7, 8, 9, 10, 1, 0, 0, 1);
        Storage c = backend.matmul(a, aB, b, Layout.contiguous(2, 2, 2));
        assertFloats(new float[] {25, 28, 57, 64, 89, 100, 1, 2, 3, 4, 5, 6}, floats(backend, c, 2, 3, 2), 0);
    }

    @Test
    void should_handle_a_permuted_batch_and_an_offset() {
        // storage holds junk at 0, then b-major pairs; a viewed as (batch=2, m=1, k=2) with batch stride 1
        Storage a = f32(backend, 99, 1, 10, 2, 20);     // a[0] = [1,2], a[1] = [10,20]
        Layout aL = new Layout(new int[] {2, 1, 2}, new int[] {1, 2, 2}, 1);
        Storage b = f32(backend, 1, 1);                 // (2,1) column of ones, broadcast over batch
        Layout bL = new Layout(new int[] {2, 2, 1}, new int[] {0, 1, 1}, 0);
        assertFloats(new float[] {3, 30}, floats(backend, backend.matmul(a, aL, b, bL), 2, 1, 1), 0);
    }

    @Test
    void should_accumulate_in_double() {
        // [1e8, 1, 1, ..., 1] · ones: float accumulation would lose the ones
        float[] row = new float[17];
        float[] ones = new float[17];
        row[0] = 1e8f;
        for (int i = 0; i < 17; i++) { ones[i] = 1; if (i > 0) row[i] = 1; }
        Storage c = backend.matmul(f32(backend, row), Layout.contiguous(1, 17), f32(backend, ones), Layout.contiguous(17, 1));
        assertEquals(100000016f, floats(backend, c, 1, 1)[0], 0);
    }

    @Test
    void should_give_zeros_for_an_empty_inner_dim() {
        Storage c = backend.matmul(backend.allocate(dev.symbiont.core.DType.FLOAT32, 0), Layout.contiguous(2, 0),
                backend.allocate(dev.symbiont.core.DType.FLOAT32, 0), Layout.contiguous(0, 3));
        assertFloats(new float[6], floats(backend, c, 2, 3), 0);
    }

    @Test
    void should_reject_mismatched_inner_dims() {
        Storage a = f32(backend, 1, 2, 3, 4, 5, 6);
        var e = assertThrows(IllegalArgumentException.class,
                () -> backend.matmul(a, Layout.contiguous(2, 3), a, Layout.contiguous(2, 3)));
        assertTrue(e.getMessage().startsWith("matmul") && e.getMessage().contains("[2, 3]"), e.getMessage());
    }
}
