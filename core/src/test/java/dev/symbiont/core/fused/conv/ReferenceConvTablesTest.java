package dev.symbiont.core.fused.conv;

import dev.symbiont.core.reference.TransferCountingBackend;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reference's tables made on the backend — the im2col index, the average's divisors, the
 * adaptive averaging matrix — against their host-built twins (loops over the geometry), exactly,
 * over every small geometry: strides, padding, dilation, kernels larger than the stride, a last
 * window that runs past the padding (ceil mode), adaptive outputs larger than the input.
 */
class ReferenceConvTablesTest {
    private final TransferCountingBackend backend = new TransferCountingBackend();

    @Test
    void theIm2colTableMadeOnTheBackendEqualsTheHostLoops() {
        int checked = 0;
        for (int in : new int[] {1, 2, 5, 8}) for (int kernel = 1; kernel <= 3; kernel++) for (int stride = 1; stride <= 3; stride++)
            for (int pad = 0; pad <= 2; pad++) for (int dilation = 1; dilation <= 2; dilation++) {
                int span = dilation * (kernel - 1) + 1, out = (in + 2 * pad - span) / stride + 1;
                if (in + 2 * pad < span) continue;
                for (int outW : new int[] {out, out + 1}) { // out + 1: a ceil-mode window past the padding
                    int inW = in + 1, outH = out; // H and W of different sizes, so a swapped axis shows
                    String where = "in " + in + "x" + inW + " kernel " + kernel + " stride " + stride + " pad " + pad
                            + " dilation " + dilation + " out " + outH + "x" + outW;
                    long[] expected = Im2col.hostTable(backend, in, inW, kernel, kernel + 1, stride, stride, pad, pad,
                            dilation, dilation, outH, outW).toLongArray();
                    backend.reset();
                    long[] actual = Im2col.table(backend, in, inW, kernel, kernel + 1, stride, stride, pad, pad,
                            dilation, dilation, outH, outW).toLongArray();
                    assertEquals(0, backend.uploads(), where + ": uploads");
                    assertArrayEquals(expected, actual, where);
                    checked++;
                }
            }
        assertEquals(378, checked, "geometries checked"); // the loops above ran
    }

    @Test
    void theAverageDivisorsMadeOnTheBackendEqualPoolGeometryDivisor() {
        for (int in : new int[] {3, 6, 7}) for (int kernel = 1; kernel <= 3; kernel++) for (int stride = 1; stride <= 3; stride++)
            for (int pad = 0; pad <= kernel / 2; pad++) {
                int outH = (in + 2 * pad - kernel) / stride + 1, outW = (in + 1 + 2 * pad - kernel) / stride + 1;
                for (int extraRow = 0; extraRow <= 1; extraRow++) { // an extra row: ceil mode's window past the padding
                    var g = new PoolGeometry(1, 1, in, in + 1, kernel, kernel, stride, stride, pad, pad, 1, 1, outH + extraRow, outW);
                    assertDivisors(g, true);
                    assertDivisors(g, false);
                }
            }
    }

    private void assertDivisors(PoolGeometry g, boolean countIncludePad) {
        float[] expected = new float[g.outH() * g.outW()];
        for (int oh = 0; oh < g.outH(); oh++) {
            for (int ow = 0; ow < g.outW(); ow++) expected[oh * g.outW() + ow] = g.divisor(oh, ow, countIncludePad);
        }
        backend.reset();
        float[] actual = ReferenceConv.divisors(backend, g, countIncludePad).toFloatArray();
        assertEquals(0, backend.uploads(), g + ": uploads");
        assertArrayEquals(expected, actual, 0f, g + " countIncludePad " + countIncludePad);
    }

    @Test
    void theAdaptiveAveragingMatrixMadeOnTheBackendEqualsTheHostLoops() {
        for (int in = 1; in <= 17; in++) for (int out = 1; out <= in + 3; out++) {
            float[] expected = ReferenceConv.hostAveraging(backend, out, in).toFloatArray();
            backend.reset();
            float[] actual = ReferenceConv.averaging(backend, out, in).toFloatArray();
            assertEquals(0, backend.uploads(), "in " + in + " out " + out + ": uploads");
            assertArrayEquals(expected, actual, 0f, "in " + in + " out " + out);
        }
    }
}
