package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.cpu.kernels.StridedCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/** download, contiguous, copyInto and cast of the CPU backend against the reference, exactly, for every dtype. */
class CpuCopyTest {

    /** The layouts every copy is checked on: each fast path, the fallbacks and the edge cases. */
    private static List<Layout> layouts() {
        List<Layout> out = new ArrayList<>();
        out.add(Layout.contiguous(5, 7));                                        // contiguous
        out.add(Layout.contiguous(13));
        out.add(new Layout(new int[] {5, 7}, new int[] {7, 1}, 3));             // offset
        out.add(new Layout(new int[0], new int[0], 4));                          // a scalar
        out.add(Layout.contiguous(6, 9, 11).narrow(1, 2, 5));                    // narrowed
        out.add(Layout.contiguous(6, 9, 11).narrow(2, 1, 9).narrow(0, 1, 4));
        out.add(Layout.contiguous(6, 9, 11).narrow(2, 3, 3));                    // short rows
        out.add(new Layout(new int[] {8, 6}, new int[] {12, 2}, 1));             // narrowed with a step
        out.add(new Layout(new int[] {3, 4, 5}, new int[] {60, 15, 3}, 2));
        out.add(Layout.contiguous(3, 4, 5).permute(2, 0, 1));                    // permuted 3-D
        out.add(Layout.contiguous(3, 4, 5).permute(1, 2, 0));
        out.add(Layout.contiguous(2, 3, 4, 5).permute(3, 1, 0, 2));              // permuted 4-D
        out.add(Layout.contiguous(2, 3, 40, 35).permute(0, 1, 3, 2));            // batched transpose
        for (int[] rc : new int[][] {{1, 1}, {7, 13}, {33, 65}, {1000, 3}, {3, 1000}}) {
            out.add(Layout.contiguous(rc[0], rc[1]).transpose(0, 1));                       // transposed 2-D
        }
        out.add(new Layout(new int[] {6, 9}, new int[] {1, 0}, 0));              // expanded: stride 0 inner
        out.add(new Layout(new int[] {6, 3}, new int[] {1, 0}, 0));              //   ... with short rows
        out.add(new Layout(new int[] {6, 9}, new int[] {0, 1}, 2));              // expanded: stride 0 outer
        out.add(new Layout(new int[] {4, 5}, new int[] {0, 0}, 3));              // a broadcast scalar
        out.add(new Layout(new int[] {3, 4, 5}, new int[] {5, 0, 1}, 1));        // stride 0 in the middle
        out.add(new Layout(new int[] {0, 5}, new int[] {5, 1}, 0));              // size-0 dims
        out.add(new Layout(new int[] {3, 0, 2}, new int[] {1, 6, 3}, 2));
        out.add(new Layout(new int[] {1, 7, 1}, new int[] {-4, 1, 9}, 0));       // size-1 dims with odd strides
        return out;
    }

    /** Layouts above the parallel threshold. */
    private static List<Layout> largeLayouts() {
        List<Layout> out = new ArrayList<>();
        out.add(Layout.contiguous(700, 700).transpose(0, 1));
        out.add(new Layout(new int[] {600, 600}, new int[] {0, 1}, 5));
        out.add(new Layout(new int[] {600, 600}, new int[] {1, 0}, 5));
        out.add(Layout.contiguous(1024, 600).narrow(1, 1, 500));
        out.add(Layout.contiguous(64, 80, 64).permute(2, 0, 1));
        out.add(new Layout(new int[] {300, 1000}, new int[] {2000, 2}, 1));
        return out;
    }

    // ---- data ----------------------------------------------------------------------------------

    /** Random host data of the dtype's Java type; floats include NaN, infinities, −0 and values beyond int range. */
    private static Object data(DType dtype, int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        return switch (dtype) {
            case FLOAT32 -> {
                float[] a = new float[n];
                float[] special = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 1e10f, -3e12f,
                        2.5f, -2.5f, 65504f, 1e-40f};
                for (int i = 0; i < n; i++) a[i] = i % 17 < special.length && i % 3 == 0 ? special[i % 17]
                        : (float) ((r.nextDouble() * 2 - 1) * 1000);
                yield a;
            }
            case INT32 -> { int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = r.nextInt(); yield a; }
            case INT64 -> { long[] a = new long[n]; for (int i = 0; i < n; i++) a[i] = r.nextLong(); yield a; }
            case BFLOAT16, FLOAT16 -> { short[] a = new short[n]; for (int i = 0; i < n; i++) a[i] = (short) r.nextInt(); yield a; }
        };
    }

    private static int storageSize(Layout layout) {
        return Math.max(layout.maxIndex() + 1, 0) + 3;
    }

    private static Object all(Backend b, Storage s) {
        return b.download(s, Layout.contiguous(Math.toIntExact(s.size())));
    }

    private static void assertSameArray(String what, Object expected, Object actual) {
        switch (expected) {
            case float[] e -> assertArrayEquals(e, (float[]) actual, what);
            case int[] e -> assertArrayEquals(e, (int[]) actual, what);
            case long[] e -> assertArrayEquals(e, (long[]) actual, what);
            case short[] e -> assertArrayEquals(e, (short[]) actual, what);
            default -> fail(what + ": unexpected " + expected.getClass());
        }
    }

    // ---- download and contiguous ---------------------------------------------------------------

    private static void checkReads(DType dtype, Layout layout, long seed) {
        Object host = data(dtype, storageSize(layout), seed);
        Storage r = REF.upload(dtype, host), c = CPU.upload(dtype, host);
        String what = dtype + " " + layout;
        assertSameArray("download " + what, REF.download(r, layout), CPU.download(c, layout));
        Storage rc = REF.contiguous(r, layout), cc = CPU.contiguous(c, layout);
        assertEquals(dtype, cc.dtype(), "contiguous dtype " + what);
        assertEquals(layout.numel(), cc.size(), "contiguous size " + what);
        assertSameArray("contiguous " + what, all(REF, rc), all(CPU, cc));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void downloadAndContiguousMatchTheReference(DType dtype) {
        long seed = 1;
        for (Layout layout : layouts()) checkReads(dtype, layout, seed++);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void largeCopiesAboveTheParallelThresholdMatchTheReference(DType dtype) {
        long seed = 100;
        for (Layout layout : largeLayouts()) {
            if (layout.numel() <= StridedCopy.PARALLEL_THRESHOLD) fail("not above the threshold: " + layout);
            checkReads(dtype, layout, seed++);
        }
    }

    // ---- copyInto ------------------------------------------------------------------------------

    /** Destination views of a shape: contiguous at an offset, and its transpose-like reversal of strides. */
    private static List<Layout> destinations(int[] shape) {
        Layout dense = new Layout(shape.clone(), Layout.rowMajorStrides(shape), 2);
        int rank = shape.length;
        int[] reversed = new int[rank];
        for (int d = 0; d < rank; d++) reversed[d] = shape[rank - 1 - d];
        int[] perm = new int[rank];
        for (int d = 0; d < rank; d++) perm[d] = rank - 1 - d;
        Layout permuted = Layout.contiguous(reversed).permute(perm);
        int[] wide = shape.clone();
        if (rank > 0) wide[rank - 1] += 3;
        Layout narrowed = rank == 0 ? dense : Layout.contiguous(wide).narrow(rank - 1, 1, shape[rank - 1]);
        return List.of(dense, permuted, narrowed);
    }

    private static void checkCopyInto(DType dtype, Layout srcLayout, Layout dstLayout, long seed) {
        Object srcHost = data(dtype, storageSize(srcLayout), seed);
        Object dstHost = data(dtype, storageSize(dstLayout), seed + 1);
        Storage rs = REF.upload(dtype, srcHost), cs = CPU.upload(dtype, srcHost);
        Storage rd = REF.upload(dtype, dstHost), cd = CPU.upload(dtype, dstHost);
        REF.copyInto(rd, dstLayout, rs, srcLayout);
        CPU.copyInto(cd, dstLayout, cs, srcLayout);
        assertSameArray("copyInto " + dtype + " " + srcLayout + " -> " + dstLayout, all(REF, rd), all(CPU, cd));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void copyIntoMatchesTheReference(DType dtype) {
        long seed = 7;
        for (Layout src : layouts()) {
            for (Layout dst : destinations(src.shape())) checkCopyInto(dtype, src, dst, seed += 2);
        }
        for (Layout src : largeLayouts()) checkCopyInto(dtype, src, destinations(src.shape()).get(1), seed += 2);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void copyIntoTheSameStorageCopiesFromTheOldValues(DType dtype) {
        Layout[][] pairs = {
                {new Layout(new int[] {30}, new int[] {1}, 0), new Layout(new int[] {30}, new int[] {1}, 5)},
                {new Layout(new int[] {30}, new int[] {1}, 5), new Layout(new int[] {30}, new int[] {1}, 0)},
                {Layout.contiguous(6, 6), Layout.contiguous(6, 6).transpose(0, 1)},                         // in-place transpose
                {new Layout(new int[] {5, 6}, new int[] {6, 1}, 0), new Layout(new int[] {5, 6}, new int[] {1, 5}, 3)},
                {new Layout(new int[] {4, 6}, new int[] {0, 1}, 2), new Layout(new int[] {4, 6}, new int[] {6, 1}, 0)},
                {Layout.contiguous(600, 600).transpose(0, 1), Layout.contiguous(600, 600)},                 // large, in place
        };
        long seed = 50;
        for (Layout[] p : pairs) {
            Object host = data(dtype, Math.max(storageSize(p[0]), storageSize(p[1])), seed++);
            Storage r = REF.upload(dtype, host), c = CPU.upload(dtype, host);
            REF.copyInto(r, p[1], r, p[0]);
            CPU.copyInto(c, p[1], c, p[0]);
            assertSameArray("same-storage copyInto " + dtype + " " + p[0] + " -> " + p[1], all(REF, r), all(CPU, c));
        }
    }

    @Test
    void copyIntoChecksShapesDtypesAndBounds() {
        Storage f = CPU.upload(DType.FLOAT32, new float[12]), i = CPU.upload(DType.INT32, new int[12]);
        assertThrows(IllegalArgumentException.class,
                () -> CPU.copyInto(f, Layout.contiguous(3, 4), f, Layout.contiguous(4, 3)));
        assertThrows(IllegalArgumentException.class,
                () -> CPU.copyInto(f, Layout.contiguous(3, 4), i, Layout.contiguous(3, 4)));
        assertThrows(IllegalArgumentException.class,
                () -> CPU.copyInto(f, new Layout(new int[] {3, 4}, new int[] {4, 1}, 1), i, Layout.contiguous(3, 4)));
        assertThrows(IllegalArgumentException.class,
                () -> CPU.download(f, new Layout(new int[] {3, 4}, new int[] {4, 1}, 1)));
        assertThrows(IllegalArgumentException.class,
                () -> CPU.contiguous(f, new Layout(new int[] {3, 4}, new int[] {-4, 1}, 8)));
    }

    // ---- cast ----------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(DType.class)
    void castMatchesTheReference(DType from) {
        long seed = 300;
        List<Layout> all = new ArrayList<>(layouts());
        all.add(largeLayouts().get(0));
        all.add(Layout.contiguous(300_000));
        for (Layout layout : all) {
            Object host = data(from, storageSize(layout), seed++);
            Storage r = REF.upload(from, host), c = CPU.upload(from, host);
            for (DType to : DType.values()) {
                Storage rc = REF.cast(r, layout, to), cc = CPU.cast(c, layout, to);
                assertEquals(to, cc.dtype());
                assertSameArray("cast " + from + " -> " + to + " " + layout, all(REF, rc), all(CPU, cc));
            }
        }
    }
}
