package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Storage;
import org.junit.jupiter.api.Test;

import static dev.symbiont.core.reference.Fixtures.assertFloats;
import static dev.symbiont.core.reference.Fixtures.f32;
import static dev.symbiont.core.reference.Fixtures.floats;
import static dev.symbiont.core.reference.Fixtures.i32;
import static dev.symbiont.core.reference.Fixtures.i64;
import static dev.symbiont.core.reference.Fixtures.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReferenceIndexingTest {
    private final ReferenceBackend backend = new ReferenceBackend();

    // x = [[1,2],[3,4],[5,6]]
    private final Storage x = f32(backend, 1, 2, 3, 4, 5, 6);
    private final Layout xL = Layout.contiguous(3, 2);

    @Test
    void should_index_select_rows_and_columns() {
        Storage rows = backend.indexSelect(x, xL, 0, i64(backend, 2, 0, 2), Layout.contiguous(3));
        assertFloats(new float[] {5, 6, 1, 2, 5, 6}, floats(backend, rows, 3, 2), 0);
        Storage cols = backend.indexSelect(x, xL, 1, i32(backend, 1), Layout.contiguous(1));
        assertFloats(new float[] {2, 4, 6}, floats(backend, cols, 3, 1), 0);
    }

    @Test
    void should_index_select_from_a_transposed_int64_tensor_with_a_strided_index() {
        Storage ids = i64(backend, 10, 20, 30, 40, 50, 60);       // (2,3) viewed transposed: [[10,40],[20,50],[30,60]]
        Layout t = Layout.contiguous(2, 3).transpose(0, 1);
        Storage index = i32(backend, 2, -7, 0);                   // every other element: [2, 0]
        Layout every2 = new Layout(new int[] {2}, new int[] {2}, 0);
        Storage out = backend.indexSelect(ids, t, 0, index, every2);
        assertEquals(DType.INT64, out.dtype());
        assertArrayEquals(new long[] {30, 60, 10, 40}, longs(backend, out, 2, 2));
    }

    @Test
    void should_name_op_value_position_dim_and_size_for_a_bad_index_select() {
        var e = assertThrows(IndexOutOfBoundsException.class,
                () -> backend.indexSelect(x, xL, 0, i64(backend, 0, 3), Layout.contiguous(2)));
        assertEquals("indexSelect: index 3 at position [1] out of range for dim 0 of size 3", e.getMessage());
        var neg = assertThrows(IndexOutOfBoundsException.class,
                () -> backend.indexSelect(x, xL, 1, i32(backend, -1), Layout.contiguous(1)));
        assertEquals("indexSelect: index -1 at position [0] out of range for dim 1 of size 2", neg.getMessage());
    }

    @Test
    void should_gather_along_each_dim() {
        Storage y = f32(backend, 1, 2, 3, 4, 5, 6);               // [[1,2,3],[4,5,6]]
        Layout yL = Layout.contiguous(2, 3);
        Storage along1 = backend.gather(y, yL, 1, i64(backend, 2, 0, 1, 1), Layout.contiguous(2, 2));
        assertFloats(new float[] {3, 1, 5, 5}, floats(backend, along1, 2, 2), 0);
        Storage along0 = backend.gather(y, yL, 0, i32(backend, 1, 0, 1), Layout.contiguous(1, 3));
        assertFloats(new float[] {4, 2, 6}, floats(backend, along0, 1, 3), 0);
    }

    @Test
    void should_gather_from_a_transposed_input() {
        // xT = [[1,3,5],[2,4,6]] (2,3); pick columns [[2],[0]]
        Layout xT = xL.transpose(0, 1);
        Storage out = backend.gather(x, xT, 1, i64(backend, 2, 0), Layout.contiguous(2, 1));
        assertFloats(new float[] {5, 2}, floats(backend, out, 2, 1), 0);
    }

    @Test
    void should_name_op_value_position_dim_and_size_for_a_bad_gather() {
        Storage y = backend.allocate(DType.FLOAT32, 10);
        Storage index = i64(backend, 0, 1, 2, 3, 4, 7);
        var e = assertThrows(IndexOutOfBoundsException.class,
                () -> backend.gather(y, Layout.contiguous(2, 5), 1, index, Layout.contiguous(2, 3)));
        assertEquals("gather: index 7 at position [1, 2] out of range for dim 1 of size 5", e.getMessage());
        Storage huge = i64(backend, 1L << 40);
        var big = assertThrows(IndexOutOfBoundsException.class,
                () -> backend.gather(y, Layout.contiguous(2, 5), 0, huge, Layout.contiguous(1, 1)));
        assertEquals("gather: index 1099511627776 at position [0, 0] out of range for dim 0 of size 2", big.getMessage());
    }

    @Test
    void should_reject_an_index_larger_than_x_off_the_gather_dim() {
        assertThrows(IllegalArgumentException.class,
                () -> backend.gather(x, xL, 1, i64(backend, 0, 0, 0, 0, 0, 0, 0, 0), Layout.contiguous(4, 2)));
    }

    @Test
    void should_scatter_add_into_a_copy_of_base() {
        Storage base = f32(backend, 1, 1, 1, 1, 1, 1);            // (2,3) ones
        Layout bL = Layout.contiguous(2, 3);
        Storage out = backend.scatterAdd(base, bL, 0, i64(backend, 1, 0, 1), Layout.contiguous(1, 3),
                f32(backend, 10, 20, 30), Layout.contiguous(1, 3));
        assertFloats(new float[] {1, 21, 1, 11, 1, 31}, floats(backend, out, 2, 3), 0);
        assertFloats(new float[] {1, 1, 1, 1, 1, 1}, floats(backend, base, 2, 3), 0); // base untouched
    }

    @Test
    void should_add_up_repeated_scatter_indices() {
        Storage out = backend.scatterAdd(backend.allocate(DType.FLOAT32, 3), Layout.contiguous(3), 0,
                i32(backend, 0, 0, 2), Layout.contiguous(3), f32(backend, 1, 2, 3), Layout.contiguous(3));
        assertFloats(new float[] {3, 0, 3}, floats(backend, out, 3), 0);
    }

    @Test
    void should_scatter_add_along_dim_one_of_a_broadcast_base() {
        // base row [0,0,0] broadcast to (2,3); add src[i][j] at column index[i][j]
        Storage base = f32(backend, 0, 0, 0);
        Layout bL = new Layout(new int[] {2, 3}, new int[] {0, 1}, 0);
        Storage out = backend.scatterAdd(base, bL, 1, i64(backend, 2, 2, 0, 1), Layout.contiguous(2, 2),
                f32(backend, 1, 2, 3, 4), Layout.contiguous(2, 2));
        assertFloats(new float[] {0, 0, 3, 3, 4, 0}, floats(backend, out, 2, 3), 0);
    }

    @Test
    void should_name_op_value_position_dim_and_size_for_a_bad_scatter() {
        var e = assertThrows(IndexOutOfBoundsException.class,
                () -> backend.scatterAdd(x, xL, 1, i32(backend, 0, 1, -2, 0), Layout.contiguous(2, 2),
                        f32(backend, 1, 1, 1, 1), Layout.contiguous(2, 2)));
        assertEquals("scatterAdd: index -2 at position [1, 0] out of range for dim 1 of size 2", e.getMessage());
    }

    @Test
    void should_reject_a_float_index() {
        assertThrows(IllegalArgumentException.class,
                () -> backend.indexSelect(x, xL, 0, f32(backend, 0), Layout.contiguous(1)));
    }
}
