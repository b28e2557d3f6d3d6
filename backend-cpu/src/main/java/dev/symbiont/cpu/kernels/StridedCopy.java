package dev.symbiont.cpu.kernels;

import dev.symbiont.core.DType;
import dev.symbiont.core.Half;
import dev.symbiont.core.Layout;

import java.util.Arrays;

/**
 * Strided copies and casts between the host arrays behind heap storages (float[], int[],
 * long[], short[]), the fast twin of the reference's element-by-element walker.
 *
 * <p>A copy {@code dst[dstLayout] = src[srcLayout]} first drops size-1 dims and merges
 * neighbouring dims that are contiguous with each other in <em>both</em> layouts
 * ("coalescing": a narrowed or fully contiguous view becomes a few long rows). The last two
 * coalesced dims form a (rows, cols) block, visited for every index of the outer dims with an
 * odometer; each block is moved by the fastest kernel its strides allow:
 * <ul>
 *   <li>cols unit-stride on both sides: {@link System#arraycopy} per row (one call when the
 *       whole copy coalesces to a single run);
 *   <li>source stride 0 along cols (a broadcast): {@link Arrays#fill} per row;
 *   <li>a transpose (one side unit-stride along rows, the other along cols): tiles of
 *       {@value #TILE_ROWS} rows × {@value #TILE_COLS} cols, so the few lines the strided side
 *       walks stay in cache even when its stride is a multiple of 4 KiB (which maps every line
 *       to the same L1 set; square 32×32 tiles measured twice as slow on 1024×1024);
 *   <li>anything else: a plain double loop over the block's strides.
 * </ul>
 * Copies above {@link #PARALLEL_THRESHOLD} elements are split by row blocks over
 * {@link Parallel}; the split depends only on the shape, and copies are exact anyway.
 */
public final class StridedCopy {
    private StridedCopy() {}

    /** Elements above which a copy is spread over the shared pool. */
    public static final int PARALLEL_THRESHOLD = 256 * 1024;

    /** Rows of a transpose tile: along them both sides advance by a unit stride on one side. */
    static final int TILE_ROWS = 64;

    /** Cols of a transpose tile: each is a separate cache line of the strided side. */
    static final int TILE_COLS = 8;

    /** Rows shorter than this are copied by a loop rather than an arraycopy call. */
    private static final int SHORT_ROW = 8;

    /** Elements a unit of work (a block of rows) aims for. */
    private static final int UNIT_ELEMENTS = 16 * 1024;

    /** A zero-filled host array of the dtype's Java type. */
    public static Object newArray(DType dtype, int size) { return dev.symbiont.core.heap.BufferPool.newArray(dtype, size); }

    /** The layout's elements in row-major order as a new array of the same Java type. */
    public static Object toContiguous(Object src, DType dtype, Layout layout) {
        Object out = newArray(dtype, layout.numel());
        copy(src, layout, out, Layout.contiguous(layout.shape()));
        return out;
    }

    /**
     * dst[dstLayout] = src[srcLayout] in row-major order. The layouts must have the same shape,
     * the arrays the same Java type, and the caller must have checked bounds; src and dst must
     * not overlap (snapshot src first when they may).
     */
    public static void copy(Object src, Layout srcLayout, Object dst, Layout dstLayout) {
        int n = srcLayout.numel();
        if (n == 0) return;
        Plan p = Plan.of(srcLayout, dstLayout);
        int units = p.outerCount * p.rowBlocks;
        if (n <= PARALLEL_THRESHOLD || units == 1) {
            p.run(src, dst, 0, units);
        } else {
            int perUnit = Math.max(1, n / units);
            Parallel.forRange(units, Math.max(1, Parallel.ELEMENT_GRAIN / perUnit), (from, to) -> p.run(src, dst, from, to));
        }
    }

    // ---- the plan: coalesced dims, the inner (rows, cols) block, and the outer odometer ---------

    /**
     * The coalesced copy: outer dims {@code [0, outer)} walked by an odometer, then a block of
     * {@code rows × cols} elements with strides (sr, sc) in src and (dr, dc) in dst, cut into
     * row blocks of {@code blockRows} rows (the units of parallel work).
     */
    private record Plan(int[] sizes, int[] ss, int[] ds, int outer, int sOff, int dOff,
                        int rows, int cols, int sr, int sc, int dr, int dc,
                        int outerCount, int blockRows, int rowBlocks) {

        static Plan of(Layout src, Layout dst) {
            int rank = src.rank();
            int[] sizes = new int[rank], ss = new int[rank], ds = new int[rank];
            int k = 0;
            for (int d = 0; d < rank; d++) {
                int size = src.size(d), s = src.stride(d), t = dst.stride(d);
                if (size == 1) continue;
                if (k > 0 && ss[k - 1] == s * size && ds[k - 1] == t * size) {
                    sizes[k - 1] *= size;
                    ss[k - 1] = s;
                    ds[k - 1] = t;
                } else {
                    sizes[k] = size;
                    ss[k] = s;
                    ds[k] = t;
                    k++;
                }
            }
            int rows = 1, cols = 1, sr = 0, sc = 0, dr = 0, dc = 0;
            if (k >= 1) { cols = sizes[k - 1]; sc = ss[k - 1]; dc = ds[k - 1]; }
            if (k >= 2) { rows = sizes[k - 2]; sr = ss[k - 2]; dr = ds[k - 2]; }
            int outer = Math.max(0, k - 2), outerCount = 1;
            for (int d = 0; d < outer; d++) outerCount *= sizes[d];
            int blockRows = Math.min(rows, roundUp(Math.max(TILE_ROWS, UNIT_ELEMENTS / cols), TILE_ROWS));
            int rowBlocks = (rows + blockRows - 1) / blockRows;
            return new Plan(sizes, ss, ds, outer, src.offset(), dst.offset(), rows, cols, sr, sc, dr, dc,
                    outerCount, blockRows, rowBlocks);
        }

        private static int roundUp(int x, int multiple) {
            return (x + multiple - 1) / multiple * multiple;
        }

        /** Moves units {@code [from, to)}: unit u is row block u % rowBlocks of outer index u / rowBlocks. */
        void run(Object src, Object dst, int from, int to) {
            int[] index = new int[outer];
            int rest = from / rowBlocks, b = from % rowBlocks;
            int so = sOff, dO = dOff;
            for (int d = outer - 1; d >= 0; d--) {
                index[d] = rest % sizes[d];
                rest /= sizes[d];
                so += index[d] * ss[d];
                dO += index[d] * ds[d];
            }
            for (int u = from; u < to; u++) {
                int r0 = b * blockRows;
                block(src, so + r0 * sr, sr, sc, dst, dO + r0 * dr, dr, dc, Math.min(blockRows, rows - r0), cols);
                if (++b < rowBlocks) continue;
                b = 0;
                for (int d = outer - 1; d >= 0; d--) {          // odometer: the last outer dim turns fastest
                    if (++index[d] < sizes[d]) {
                        so += ss[d];
                        dO += ds[d];
                        break;
                    }
                    so -= (sizes[d] - 1) * ss[d];
                    dO -= (sizes[d] - 1) * ds[d];
                    index[d] = 0;
                }
            }
        }
    }

    // ---- block kernels ---------------------------------------------------------------------------

    /** dst[dO + i·dr + j·dc] = src[so + i·sr + j·sc] for i < rows, j < cols, by the fastest kernel that fits. */
    static void block(Object src, int so, int sr, int sc, Object dst, int dO, int dr, int dc, int rows, int cols) {
        if (sc == 1 && dc == 1 && cols >= SHORT_ROW) {
            for (int i = 0; i < rows; i++) System.arraycopy(src, so + i * sr, dst, dO + i * dr, cols);
        } else if (sc == 0 && dc == 1 && cols >= SHORT_ROW) {
            fillRows(src, so, sr, dst, dO, dr, rows, cols);
        } else if (rows > 1 && cols > 1 && ((sr == 1 && dc == 1) || (sc == 1 && dr == 1))) {
            for (int i0 = 0; i0 < rows; i0 += TILE_ROWS) {
                int ni = Math.min(TILE_ROWS, rows - i0);
                for (int j0 = 0; j0 < cols; j0 += TILE_COLS) {
                    strided(src, so + i0 * sr + j0 * sc, sr, sc, dst, dO + i0 * dr + j0 * dc, dr, dc,
                            ni, Math.min(TILE_COLS, cols - j0));
                }
            }
        } else {
            strided(src, so, sr, sc, dst, dO, dr, dc, rows, cols);
        }
    }

    /** Row i of dst (unit stride) filled with src[so + i·sr]. */
    private static void fillRows(Object src, int so, int sr, Object dst, int dO, int dr, int rows, int cols) {
        switch (src) {
            case float[] s -> { float[] d = (float[]) dst; for (int i = 0; i < rows; i++) Arrays.fill(d, dO + i * dr, dO + i * dr + cols, s[so + i * sr]); }
            case int[] s -> { int[] d = (int[]) dst; for (int i = 0; i < rows; i++) Arrays.fill(d, dO + i * dr, dO + i * dr + cols, s[so + i * sr]); }
            case long[] s -> { long[] d = (long[]) dst; for (int i = 0; i < rows; i++) Arrays.fill(d, dO + i * dr, dO + i * dr + cols, s[so + i * sr]); }
            case short[] s -> { short[] d = (short[]) dst; for (int i = 0; i < rows; i++) Arrays.fill(d, dO + i * dr, dO + i * dr + cols, s[so + i * sr]); }
            default -> throw unsupported(src);
        }
    }

    /** The plain double loop over a block's strides. */
    private static void strided(Object src, int so, int sr, int sc, Object dst, int dO, int dr, int dc, int rows, int cols) {
        switch (src) {
            case float[] s -> {
                float[] d = (float[]) dst;
                for (int i = 0; i < rows; i++) {
                    int a = so + i * sr, b = dO + i * dr;
                    for (int j = 0; j < cols; j++, a += sc, b += dc) d[b] = s[a];
                }
            }
            case int[] s -> {
                int[] d = (int[]) dst;
                for (int i = 0; i < rows; i++) {
                    int a = so + i * sr, b = dO + i * dr;
                    for (int j = 0; j < cols; j++, a += sc, b += dc) d[b] = s[a];
                }
            }
            case long[] s -> {
                long[] d = (long[]) dst;
                for (int i = 0; i < rows; i++) {
                    int a = so + i * sr, b = dO + i * dr;
                    for (int j = 0; j < cols; j++, a += sc, b += dc) d[b] = s[a];
                }
            }
            case short[] s -> {
                short[] d = (short[]) dst;
                for (int i = 0; i < rows; i++) {
                    int a = so + i * sr, b = dO + i * dr;
                    for (int j = 0; j < cols; j++, a += sc, b += dc) d[b] = s[a];
                }
            }
            default -> throw unsupported(src);
        }
    }

    private static IllegalArgumentException unsupported(Object array) {
        return new IllegalArgumentException("strided copy: unsupported host array " + array.getClass().getSimpleName());
    }

    // ---- casts -----------------------------------------------------------------------------------

    /** True for the conversions {@link #convert} runs: float32 to or from bfloat16, float16 and int32, and float32 to int64. */
    public static boolean converts(DType from, DType to) {
        if (from == DType.FLOAT32) return to != DType.FLOAT32;
        return to == DType.FLOAT32 && from != DType.INT64;
    }

    /**
     * {@code n} elements of a contiguous src from {@code offset}, converted as the reference
     * casts them: float to int truncates toward zero (NaN gives 0, out of range saturates),
     * halves round to nearest even. Only the pairs {@link #converts} accepts.
     */
    public static Object convert(Object src, DType from, int offset, int n, DType to) {
        Object out = newArray(to, n);
        Parallel.RangeBody body = switch (from) {
            case FLOAT32 -> {
                float[] s = (float[]) src;
                yield switch (to) {
                    case BFLOAT16 -> { short[] d = (short[]) out; yield (a, b) -> { for (int i = a; i < b; i++) d[i] = Half.floatToBf16(s[offset + i]); }; }
                    case FLOAT16 -> { short[] d = (short[]) out; yield (a, b) -> { for (int i = a; i < b; i++) d[i] = Half.floatToF16(s[offset + i]); }; }
                    case INT32 -> { int[] d = (int[]) out; yield (a, b) -> { for (int i = a; i < b; i++) d[i] = (int) s[offset + i]; }; }
                    case INT64 -> { long[] d = (long[]) out; yield (a, b) -> { for (int i = a; i < b; i++) d[i] = (long) s[offset + i]; }; }
                    case FLOAT32 -> throw new IllegalArgumentException("convert: float32 to float32 is a copy");
                };
            }
            case BFLOAT16 -> { short[] s = (short[]) src; float[] d = (float[]) out; yield (a, b) -> { for (int i = a; i < b; i++) d[i] = Half.bf16ToFloat(s[offset + i]); }; }
            case FLOAT16 -> { short[] s = (short[]) src; float[] d = (float[]) out; yield (a, b) -> { for (int i = a; i < b; i++) d[i] = Half.f16ToFloat(s[offset + i]); }; }
            case INT32 -> { int[] s = (int[]) src; float[] d = (float[]) out; yield (a, b) -> { for (int i = a; i < b; i++) d[i] = s[offset + i]; }; }
            case INT64 -> throw new IllegalArgumentException("convert: int64 is not handled here");
        };
        if (n <= PARALLEL_THRESHOLD) body.run(0, n);
        else Parallel.forRange(n, Parallel.ELEMENT_GRAIN, body);
        return out;
    }
}
