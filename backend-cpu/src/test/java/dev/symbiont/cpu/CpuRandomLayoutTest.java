package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.UnaryOp;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.norm;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;

/**
 * Randomised layouts against the reference: each fast path must fire only for the layouts it
 * handles. Layouts mix offsets, permuted strides, gaps, stride-0 dims anywhere, and size-0 and
 * size-1 dims with arbitrary strides.
 */
class CpuRandomLayoutTest {

    /** A layout of {@code shape} with random dim order, gaps, stride-0 dims and offset. */
    static Layout randomLayout(SplittableRandom r, int[] shape) {
        int rank = shape.length;
        int[] order = new int[rank];
        for (int i = 0; i < rank; i++) order[i] = i;
        for (int i = rank - 1; i > 0; i--) { int j = r.nextInt(i + 1); int t = order[i]; order[i] = order[j]; order[j] = t; }
        if (r.nextInt(3) == 0) for (int i = 0; i < rank; i++) order[i] = rank - 1 - i; // often row-major
        int[] strides = new int[rank];
        int s = 1;
        for (int i = rank - 1; i >= 0; i--) {
            int d = order[i];
            int kind = r.nextInt(6);
            if (kind == 0) { strides[d] = 0; continue; }                    // broadcast
            if (shape[d] == 1 && kind == 1) { strides[d] = 1 + r.nextInt(50); continue; } // odd size-1 stride
            strides[d] = s;
            s = s * Math.max(shape[d], 1) + (kind == 2 ? r.nextInt(3) : 0); // gap
        }
        return new Layout(shape.clone(), strides, r.nextInt(4));
    }

    static int[] randomShape(SplittableRandom r, int maxRank) {
        int rank = 1 + r.nextInt(maxRank);
        int[] shape = new int[rank];
        for (int i = 0; i < rank; i++) {
            int k = r.nextInt(10);
            shape[i] = k == 0 ? 1 : k == 1 ? (r.nextInt(8) == 0 ? 0 : 1) : 1 + r.nextInt(k < 8 ? 5 : 40);
        }
        return shape;
    }

    static int extent(Layout l) { return Math.max(l.maxIndex() + 1, 1) + 3; }

    static Tensor on(Backend b, float[] data, Layout l) { return tensor(b, data, l); }

    @Test
    void binaryMatchesReferenceOnRandomLayouts() {
        SplittableRandom r = new SplittableRandom(11);
        BinaryOp[] ops = BinaryOp.values();
        for (int trial = 0; trial < 3000; trial++) {
            int[] shape = randomShape(r, 4);
            Layout la = randomLayout(r, shape), lb = randomLayout(r, shape);
            float[] a = random(trial, extent(la), 3f), b = random(trial + 7, extent(lb), 3f);
            for (int i = 0; i < b.length; i++) if (Math.abs(b[i]) < 0.1f) b[i] = 0.5f;
            BinaryOp op = ops[r.nextInt(ops.length)];
            if (op == BinaryOp.POW) for (int i = 0; i < a.length; i++) a[i] = Math.abs(a[i]) + 0.1f;
            float[] e = read(REF, REF.binary(op, REF.upload(DType.FLOAT32, a), la, REF.upload(DType.FLOAT32, b), lb), shape);
            float[] c = read(CPU, CPU.binary(op, CPU.upload(DType.FLOAT32, a), la, CPU.upload(DType.FLOAT32, b), lb), shape);
            assertClose(op + " " + la + " " + lb, e, c, 1e-6, 1e-7);
        }
    }

    @Test
    void unaryAndCopiesMatchReferenceOnRandomLayouts() {
        SplittableRandom r = new SplittableRandom(12);
        UnaryOp[] ops = UnaryOp.values();
        for (int trial = 0; trial < 2000; trial++) {
            int[] shape = randomShape(r, 4);
            Layout l = randomLayout(r, shape);
            float[] a = random(trial, extent(l), 3f);
            UnaryOp op = ops[r.nextInt(ops.length)];
            if (op == UnaryOp.LOG || op == UnaryOp.SQRT || op == UnaryOp.RSQRT) for (int i = 0; i < a.length; i++) a[i] = Math.abs(a[i]) + 0.1f;
            float[] e = read(REF, REF.unary(op, REF.upload(DType.FLOAT32, a), l), shape);
            float[] c = read(CPU, CPU.unary(op, CPU.upload(DType.FLOAT32, a), l), shape);
            assertClose(op + " " + l, e, c, 4e-6, 1e-7);
            assertClose("contiguous " + l, read(REF, REF.contiguous(REF.upload(DType.FLOAT32, a), l), shape),
                    read(CPU, CPU.contiguous(CPU.upload(DType.FLOAT32, a), l), shape), 0, 0);
            for (DType to : new DType[] {DType.BFLOAT16, DType.FLOAT16, DType.INT32, DType.INT64}) {
                Tensor re = new Tensor(REF.cast(REF.upload(DType.FLOAT32, a), l, to), Layout.contiguous(shape));
                Tensor ce = new Tensor(CPU.cast(CPU.upload(DType.FLOAT32, a), l, to), Layout.contiguous(shape));
                assertClose("cast " + to + " " + l, re.toFloatArray(), ce.toFloatArray(), 0, 0);
            }
        }
    }

    @Test
    void reduceMatchesReferenceOnRandomLayoutsAndDims() {
        SplittableRandom r = new SplittableRandom(13);
        ReduceOp[] ops = {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN};
        for (int trial = 0; trial < 3000; trial++) {
            int[] shape = randomShape(r, 4);
            Layout l = r.nextBoolean() ? randomLayout(r, shape) : new Layout(shape.clone(), Layout.rowMajorStrides(shape), r.nextInt(3));
            List<Integer> dl = new ArrayList<>();
            for (int d = 0; d < shape.length; d++) if (r.nextBoolean()) dl.add(d);
            int[] dims = dl.stream().mapToInt(Integer::intValue).toArray();
            ReduceOp op = ops[r.nextInt(ops.length)];
            boolean emptyReduced = false;
            for (int d : dims) if (shape[d] == 0) emptyReduced = true;
            if (op != ReduceOp.SUM && emptyReduced) continue;
            float[] a = random(trial, extent(l), 3f);
            int[] kept = shape.clone();
            for (int d : dims) kept[d] = 1;
            float[] e = read(REF, REF.reduce(op, REF.upload(DType.FLOAT32, a), l, dims), kept);
            float[] c = read(CPU, CPU.reduce(op, CPU.upload(DType.FLOAT32, a), l, dims), kept);
            assertClose(op + " " + java.util.Arrays.toString(dims) + " " + l, e, c, 1e-5, 1e-5);
        }
    }

    @Test
    void matmulMatchesReferenceOnRandomBatchedLayouts() {
        SplittableRandom r = new SplittableRandom(14);
        for (int trial = 0; trial < 1500; trial++) {
            int batchRank = r.nextInt(3);
            int[] batch = new int[batchRank];
            for (int i = 0; i < batchRank; i++) batch[i] = r.nextInt(6) == 0 ? 1 : 1 + r.nextInt(4);
            int m = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(r.nextBoolean() ? 6 : 70);
            int k = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(r.nextBoolean() ? 6 : 70);
            int n = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(r.nextBoolean() ? 6 : 70);
            int[] sa = java.util.Arrays.copyOf(batch, batchRank + 2), sb = sa.clone();
            sa[batchRank] = m; sa[batchRank + 1] = k;
            sb[batchRank] = k; sb[batchRank + 1] = n;
            Layout la = randomLayout(r, sa), lb = randomLayout(r, sb);
            float[] a = random(trial, extent(la), 1f), b = random(trial + 3, extent(lb), 1f);
            int[] so = sa.clone(); so[batchRank + 1] = n;
            float[] e = read(REF, REF.matmul(REF.upload(DType.FLOAT32, a), la, REF.upload(DType.FLOAT32, b), lb), so);
            float[] c = read(CPU, CPU.matmul(CPU.upload(DType.FLOAT32, a), la, CPU.upload(DType.FLOAT32, b), lb), so);
            assertClose("matmul " + la + " " + lb, e, c, 1e-4, 1e-4);
        }
    }

    @Test
    void softmaxAndNormsMatchReferenceOnRandomLayouts() {
        SplittableRandom r = new SplittableRandom(15);
        for (int trial = 0; trial < 800; trial++) {
            int[] shape = randomShape(r, 3);
            if (java.util.Arrays.stream(shape).anyMatch(d -> d == 0)) continue;
            Layout l = randomLayout(r, shape);
            float[] a = random(trial, extent(l), 3f);
            Tensor xr = on(REF, a, l), xc = on(CPU, a, l);
            int dim = r.nextInt(shape.length);
            assertClose("softmax " + dim + " " + l, norm(REF).softmax(xr, dim).toFloatArray(), norm(CPU).softmax(xc, dim).toFloatArray(), 1e-5, 1e-6);
            assertClose("log_softmax " + dim + " " + l, norm(REF).logSoftmax(xr, dim).toFloatArray(), norm(CPU).logSoftmax(xc, dim).toFloatArray(), 1e-5, 1e-5);
            Layout lg = randomLayout(r, shape);
            float[] g = random(trial + 1, extent(lg), 1f);
            Tensor gr = on(REF, g, lg), gc = on(CPU, g, lg);
            Tensor yr = norm(REF).softmax(xr, dim);
            Tensor yc = on(CPU, yr.toFloatArray(), Layout.contiguous(shape));
            assertClose("softmax backward " + l, norm(REF).softmaxBackward(yr, gr, dim).toFloatArray(),
                    norm(CPU).softmaxBackward(yc, gc, dim).toFloatArray(), 1e-4, 1e-5);
            Tensor lr = norm(REF).logSoftmax(xr, dim);
            Tensor lc = on(CPU, lr.toFloatArray(), Layout.contiguous(shape));
            assertClose("log_softmax backward " + l, norm(REF).logSoftmaxBackward(lr, gr, dim).toFloatArray(),
                    norm(CPU).logSoftmaxBackward(lc, gc, dim).toFloatArray(), 1e-4, 1e-5);
            // a row broadcast along its cols is constant: its variance is rounding noise, ill-conditioned
            if (shape.length == 2 && (l.stride(1) != 0 || shape[1] == 1)) {
                int cols = shape[1];
                Layout lw = randomLayout(r, new int[] {cols});
                float[] w = random(trial + 2, extent(lw), 1f);
                Tensor wr = on(REF, w, lw), wc = on(CPU, w, lw);
                var nr = norm(REF).layerNorm(xr, wr, wr, 1e-5);
                var nc = norm(CPU).layerNorm(xc, wc, wc, 1e-5);
                assertClose("layer_norm " + l + " " + lw, nr.output().toFloatArray(), nc.output().toFloatArray(), 1e-4, 1e-4);
                var br = norm(REF).layerNormBackward(gr, xr, wr, wr, nr.mean(), nr.rstd());
                var bc = norm(CPU).layerNormBackward(gc, xc, wc, wc, on(CPU, nr.mean().toFloatArray(), Layout.contiguous(shape[0], 1)),
                        on(CPU, nr.rstd().toFloatArray(), Layout.contiguous(shape[0], 1)));
                assertClose("layer_norm gx " + l, br.input().toFloatArray(), bc.input().toFloatArray(), 1e-3, 1e-3);
                assertClose("layer_norm gw " + l, br.weight().toFloatArray(), bc.weight().toFloatArray(), 1e-3, 1e-3);
                assertClose("layer_norm gb " + l, br.bias().toFloatArray(), bc.bias().toFloatArray(), 1e-4, 1e-4);
                var rr = norm(REF).rmsNorm(xr, wr, 1e-5);
                var rc = norm(CPU).rmsNorm(xc, wc, 1e-5);
                assertClose("rms_norm " + l, rr.output().toFloatArray(), rc.output().toFloatArray(), 1e-4, 1e-4);
                var rbr = norm(REF).rmsNormBackward(gr, xr, wr, rr.rstd());
                var rbc = norm(CPU).rmsNormBackward(gc, xc, wc, on(CPU, rr.rstd().toFloatArray(), Layout.contiguous(shape[0], 1)));
                assertClose("rms_norm gx " + l, rbr.input().toFloatArray(), rbc.input().toFloatArray(), 1e-3, 1e-3);
                assertClose("rms_norm gw " + l, rbr.weight().toFloatArray(), rbc.weight().toFloatArray(), 1e-3, 1e-3);
            }
        }
    }

    /** Above the parallel grains (32 Ki elements, 256 Ki for copies), with offsets and broadcasts. */
    @Test
    void largeOffsetAndBroadcastLayoutsMatchReferenceAcrossParallelChunks() {
        int rows = 301, cols = 1031; // > 256 Ki elements, odd sizes so chunks split mid-row
        int[] shape = {rows, cols};
        Layout[] layouts = {
                new Layout(shape.clone(), new int[] {cols, 1}, 5),          // contiguous, offset
                new Layout(shape.clone(), new int[] {0, 1}, 3),             // bias row
                new Layout(shape.clone(), new int[] {1, 0}, 7),             // row statistic
                new Layout(shape.clone(), new int[] {1, rows}, 2),          // transposed
                new Layout(shape.clone(), new int[] {cols + 3, 1}, 1),      // padded rows
        };
        float[] data = random(99, rows * (cols + 3) + 16, 2f);
        for (Layout la : layouts) {
            for (Layout lb : layouts) {
                float[] e = read(REF, REF.binary(BinaryOp.SUB, REF.upload(DType.FLOAT32, data), la, REF.upload(DType.FLOAT32, data), lb), shape);
                float[] c = read(CPU, CPU.binary(BinaryOp.SUB, CPU.upload(DType.FLOAT32, data), la, CPU.upload(DType.FLOAT32, data), lb), shape);
                assertClose("sub " + la + " " + lb, e, c, 0, 0);
            }
            assertClose("contiguous " + la, read(REF, REF.contiguous(REF.upload(DType.FLOAT32, data), la), shape),
                    read(CPU, CPU.contiguous(CPU.upload(DType.FLOAT32, data), la), shape), 0, 0);
            for (int[] dims : new int[][] {{0}, {1}, {0, 1}}) {
                int[] kept = shape.clone();
                for (int d : dims) kept[d] = 1;
                for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.MAX}) {
                    assertClose(op + " " + java.util.Arrays.toString(dims) + " " + la,
                            read(REF, REF.reduce(op, REF.upload(DType.FLOAT32, data), la, dims), kept),
                            read(CPU, CPU.reduce(op, CPU.upload(DType.FLOAT32, data), la, dims), kept), 1e-5, 1e-4);
                }
            }
            Tensor xr = on(REF, data, la), xc = on(CPU, data, la);
            assertClose("softmax " + la, norm(REF).softmax(xr, 1).toFloatArray(), norm(CPU).softmax(xc, 1).toFloatArray(), 1e-5, 1e-7);
        }
    }

    @Test
    void castsOfSpecialValuesMatchReferenceOnOffsetViews() {
        float[] special = {0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 3e9f, -3e9f, 1e20f,
                -1e20f, 65504f, 65520f, 1e-8f, -2.5f, 2.5f, 3.5f, Float.MIN_VALUE, 0.1f};
        Layout[] layouts = {new Layout(new int[] {16}, new int[] {1}, 1), new Layout(new int[] {4, 4}, new int[] {1, 4}, 1),
                new Layout(new int[] {3, 5}, new int[] {0, 1}, 2)};
        for (Layout l : layouts) {
            for (DType to : new DType[] {DType.BFLOAT16, DType.FLOAT16, DType.INT32, DType.INT64}) {
                Tensor re = new Tensor(REF.cast(REF.upload(DType.FLOAT32, special), l, to), Layout.contiguous(l.shape()));
                Tensor ce = new Tensor(CPU.cast(CPU.upload(DType.FLOAT32, special), l, to), Layout.contiguous(l.shape()));
                assertClose("cast " + to + " " + l, re.toFloatArray(), ce.toFloatArray(), 0, 0);
                if (to.isInteger()) {
                    org.junit.jupiter.api.Assertions.assertArrayEquals(re.toLongArray(), ce.toLongArray(), "cast " + to + " " + l);
                }
            }
        }
    }
}
