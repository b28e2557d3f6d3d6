package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Small helpers shared by the reference backend tests. */
final class Fixtures {
    private Fixtures() {}

    static Storage f32(Backend b, float... values) { return b.upload(DType.FLOAT32, values); }

    static Storage i32(Backend b, int... values) { return b.upload(DType.INT32, values); }

    static Storage i64(Backend b, long... values) { return b.upload(DType.INT64, values); }

    /** A float32 result read back in row-major order of a contiguous layout of the given shape. */
    static float[] floats(Backend b, Storage s, int... shape) {
        return (float[]) b.download(s, Layout.contiguous(shape));
    }

    static long[] longs(Backend b, Storage s, int... shape) {
        return (long[]) b.download(s, Layout.contiguous(shape));
    }

    /** Element-wise equality of floats treating NaN as equal to NaN and -0 as equal to +0. */
    static void assertFloats(float[] expected, float[] actual, float tolerance) {
        assertEquals(expected.length, actual.length, "length");
        for (int i = 0; i < expected.length; i++) {
            if (Float.isNaN(expected[i])) {
                assertEquals(Float.NaN, actual[i], "element " + i);
            } else {
                assertEquals(expected[i], actual[i], tolerance, "element " + i);
            }
        }
    }
}
