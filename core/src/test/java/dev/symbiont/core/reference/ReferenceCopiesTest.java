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
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReferenceCopiesTest {
    private static final float NAN = Float.NaN, INF = Float.POSITIVE_INFINITY;
    private final ReferenceBackend backend = new ReferenceBackend();

    private Object cast(Storage s, DType to) {
        Layout l = Layout.contiguous(Math.toIntExact(s.size()));
        return backend.download(backend.cast(s, l, to), l);
    }

    private short[] shorts(DType dtype, float... values) {
        return (short[]) cast(f32(backend, values), dtype);
    }

    @Test
    void should_truncate_floats_toward_zero_when_casting_to_ints() {
        Storage s = f32(backend, 1.9f, -1.9f, NAN, 3e9f, -0.5f);
        assertArrayEquals(new int[] {1, -1, 0, Integer.MAX_VALUE, 0}, (int[]) cast(s, DType.INT32));
        assertArrayEquals(new long[] {1, -1, 0, 3_000_000_000L, 0}, (long[]) cast(s, DType.INT64));
    }

    @Test
    void should_wrap_when_narrowing_int64_to_int32() {
        Storage s = i64(backend, (1L << 32) + 5, -1, 1L << 31);
        assertArrayEquals(new int[] {5, -1, Integer.MIN_VALUE}, (int[]) cast(s, DType.INT32));
        assertArrayEquals(new long[] {-7, 2}, (long[]) cast(i32(backend, -7, 2), DType.INT64));
    }

    @Test
    void should_round_ints_to_nearest_float() {
        assertArrayEquals(new float[] {16777216f, -3f}, (float[]) cast(i32(backend, 16777217, -3), DType.FLOAT32));
        // 2049 lies halfway between the float16 neighbours 2048 and 2050: ties to even gives 2048
        assertArrayEquals(new short[] {0x6800}, (short[]) cast(i32(backend, 2049), DType.FLOAT16));
    }

    @Test
    void should_round_to_nearest_even_for_bfloat16() {
        float onePlusHalfUlp = 1f + 0x1p-8f;       // tie: 1.0 is even
        float onePlusThreeQuarterUlp = 1f + 3 * 0x1p-9f;
        float onePlusThreeHalfUlp = 1f + 3 * 0x1p-8f; // tie: rounds up to the even 1 + 2^-6
        assertArrayEquals(new short[] {0x3F80, 0x3F81, 0x3F82, 0x7F80, (short) 0xFF80},
                shorts(DType.BFLOAT16, onePlusHalfUlp, onePlusThreeQuarterUlp, onePlusThreeHalfUlp, INF, -INF));
        short nan = shorts(DType.BFLOAT16, NAN)[0];
        assertTrue(Float.isNaN(dev.symbiont.core.Half.bf16ToFloat(nan)));
    }

    @Test
    void should_round_to_nearest_even_for_float16() {
        assertArrayEquals(new short[] {0x3C00, 0x3C02, 0x7BFF, 0x7C00, 0},
                shorts(DType.FLOAT16, 1f + 0x1p-11f, 1f + 3 * 0x1p-11f, 65504f, 65520f, 1e-8f));
        assertTrue(Float.isNaN(dev.symbiont.core.Half.f16ToFloat(shorts(DType.FLOAT16, NAN)[0])));
    }

    @Test
    void should_cast_halves_back_exactly_and_to_each_other() {
        Storage bf = backend.upload(DType.BFLOAT16, new short[] {0x3F81, 0x4020, (short) 0xC020, 0x7FC0});
        assertFloats(new float[] {1.0078125f, 2.5f, -2.5f, NAN}, (float[]) cast(bf, DType.FLOAT32), 0);
        assertArrayEquals(new int[] {1, 2, -2, 0}, (int[]) cast(bf, DType.INT32));
        Storage f16 = backend.upload(DType.FLOAT16, new short[] {0x3C00, 0x7C00});
        assertArrayEquals(new short[] {0x3F80, 0x7F80}, (short[]) cast(f16, DType.BFLOAT16));
    }

    @Test
    void should_cast_a_transposed_layout_in_row_major_order() {
        Storage s = f32(backend, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f);
        Layout t = Layout.contiguous(2, 3).transpose(0, 1);
        Storage out = backend.cast(s, t, DType.INT64);
        assertArrayEquals(new long[] {1, 4, 2, 5, 3, 6}, (long[]) backend.download(out, Layout.contiguous(3, 2)));
    }

    @Test
    void should_fill_every_dtype() {
        Layout l3 = Layout.contiguous(3);
        assertArrayEquals(new long[] {7, 7, 7}, (long[]) backend.download(backend.full(DType.INT64, 3, 7), l3));
        assertArrayEquals(new int[] {-2, -2, -2}, (int[]) backend.download(backend.full(DType.INT32, 3, -2.7), l3));
        assertArrayEquals(new float[] {-0.5f, -0.5f, -0.5f}, (float[]) backend.download(backend.full(DType.FLOAT32, 3, -0.5), l3));
        assertArrayEquals(new short[] {0x3F80, 0x3F80}, (short[]) backend.download(backend.full(DType.BFLOAT16, 2, 1), Layout.contiguous(2)));
        assertArrayEquals(new short[] {0x7C00}, (short[]) backend.download(backend.full(DType.FLOAT16, 1, 65520), Layout.contiguous(1)));
        assertArrayEquals(new float[4], (float[]) backend.download(backend.allocate(DType.FLOAT32, 4), Layout.contiguous(4)));
    }

    @Test
    void should_copy_on_upload_and_download() {
        float[] host = {1, 2, 3};
        Storage s = backend.upload(DType.FLOAT32, host);
        host[0] = 99;
        float[] back = floats(backend, s, 3);
        assertEquals(1f, back[0]);
        back[1] = 99;
        assertEquals(2f, floats(backend, s, 3)[1]);
        var e = assertThrows(IllegalArgumentException.class, () -> backend.upload(DType.INT64, new int[] {1}));
        assertTrue(e.getMessage().contains("int64"), e.getMessage());
    }

    @Test
    void should_make_strided_views_contiguous_for_every_dtype() {
        Layout t = Layout.contiguous(2, 3).transpose(0, 1);
        Storage ints = backend.contiguous(i32(backend, 1, 2, 3, 4, 5, 6), t);
        assertArrayEquals(new int[] {1, 4, 2, 5, 3, 6}, (int[]) backend.download(ints, Layout.contiguous(3, 2)));
        Storage halves = backend.contiguous(backend.upload(DType.FLOAT16, new short[] {1, 2, 3, 4, 5, 6}), t);
        assertEquals(DType.FLOAT16, halves.dtype());
        assertArrayEquals(new short[] {1, 4, 2, 5, 3, 6}, (short[]) backend.download(halves, Layout.contiguous(3, 2)));
    }

    @Test
    void should_copy_into_strided_destinations() {
        Storage dst = backend.allocate(DType.FLOAT32, 6);
        Storage src = f32(backend, 1, 2, 3, 4, 5, 6);
        // dst viewed transposed (3,2) receives src (3,2) = [[1,2],[3,4],[5,6]]
        backend.copyInto(dst, Layout.contiguous(2, 3).transpose(0, 1), src, Layout.contiguous(3, 2));
        assertFloats(new float[] {1, 3, 5, 2, 4, 6}, floats(backend, dst, 6), 0);
        Storage row = i64(backend, 0, 0, 0, 0);
        backend.copyInto(row, new Layout(new int[] {2}, new int[] {2}, 1), i64(backend, 8, 9), Layout.contiguous(2));
        assertArrayEquals(new long[] {0, 8, 0, 9}, (long[]) backend.download(row, Layout.contiguous(4)));
    }

    @Test
    void should_copy_overlapping_views_of_one_storage_from_the_old_values() {
        Storage s = f32(backend, 1, 2, 3, 4);
        backend.copyInto(s, new Layout(new int[] {3}, new int[] {1}, 1), s, Layout.contiguous(3));
        assertFloats(new float[] {1, 1, 2, 3}, floats(backend, s, 4), 0);
    }
}
