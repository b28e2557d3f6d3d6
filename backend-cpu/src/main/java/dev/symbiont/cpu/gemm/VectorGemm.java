package dev.symbiont.cpu.gemm;

import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.TaskRunner;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;

/**
 * Vector-API GEMM in the BLIS/GotoBLAS layout.
 *
 * <pre>
 * C is cut into one rectangle per thread (rows × columns, see Split); each rectangle runs
 * for jc in its columns by NC                 B block  KC×NC  (per thread, in L2)
 *   for pc in K by KC:  pack B
 *     for ic in its rows by MC:  pack A       A block  MC×KC  (per thread, in L2)
 *       for jr in B panels                    B micro-panel KC×NR (in L1 when it fits)
 *         for ir in A panels:  micro-kernel MR×NR, accumulators in registers
 * </pre>
 *
 * A rectangle wider than one B block swaps the two inner loops: each A micro-panel (MR×KC)
 * stays in L1 while the block's B panels stream past it from L2, as in BLIS's AVX-512
 * kernels — a KC×NR B panel (32 KiB at 256 × 32) already fills Zen 4's whole L1d, so the A
 * panels streaming past evict it. Measured on Zen 4, 2 cores, KC = 256, both orders alternated
 * in one JVM (15 rounds): A panels outer won 12–13 rounds at 2048 × 1024 × 256 (+5–10%),
 * 4096 × 1024 × 256 (+4%) and 2048 × 768 × 256 (+3%), but lost 12 at 512³ (−3%) and tied at
 * n = 256. Every tile is the same kernel call either way: the results are the same bits.
 * Such a rectangle also packs its rows of A once, for its first column block, and rereads the
 * packed blocks for the others ({@link #KEPT_A_FLOATS}).
 *
 * Packing per thread rather than one shared B block was measured: sharing needs a barrier
 * per block and makes each core read half its panels from the other core's cache, and ran
 * at about half the speed on two cores. Small problems run on the calling thread;
 * {@link #sgemmBatched} runs small problems in parallel across the batch. All threads come
 * from {@link CpuThreads#team()}.
 */
public final class VectorGemm implements Gemm {

    static final int MR = VectorGemmKernels.MR;
    static final int NR = VectorGemmKernels.NR;
    /**
     * Depth of a block. Deeper blocks pass over C fewer times (a product with k = 1024 loads and
     * stores each C tile twice instead of four times); the B micro-panel (64 KiB at 512 × 32) then
     * streams from L2 either way — at 256 × 32 it already filled Zen 4's 32 KiB L1d. Measured on
     * Zen 4, 2 cores, against KC = 256 with {@code GemmBlockingProfile} (15 alternated rounds in
     * one JVM): 1024³ +13.5% (won 13), 2048 × 256 × 1024 +10.6% (13), the weight gradient
     * 1024 × 256 × 2048 (gᵀ·x) +4.6% (12), 512³ +3.6% (8, a tie); k ≤ 256 runs the same code.
     */
    static final int KC = 512;
    /** Rows of an A block, a whole number of micro-panels: MC×KC floats (256 KiB) sit in L2 next to the B block. */
    static final int MC = 128;
    /**
     * Columns of a B block: KC×NC floats (1 MiB) from the packing thread's own L2. Measured: 512
     * beat 4096 by ~2× with two threads, which then stream B from L3; 1024 lost to 512 (KC 256),
     * and with KC 512, 384 lost to 512 at 1024³ (−4%, 4 of 15 rounds) and 2048 × 1024 × 256
     * (−11%, 3 of 15), tying elsewhere; MC 64 tied with 128.
     */
    static final int NC = 512;

    /**
     * The cache blocking of one VectorGemm: KC (depth of a block), MC (rows of an A block, a
     * multiple of MR) and NC (columns of a B block, a multiple of NR). Rectangles wider than NC
     * keep A's micro-panels in L1 (see the class comment). The default is the measured
     * {@link #KC} × {@link #MC} × {@link #NC}; others exist so that a benchmark can alternate
     * blockings in one JVM ({@code GemmBlockingProfile}), the only way their few-percent
     * differences show on a noisy machine. Any blocking gives the same bits for k ≤ its KC;
     * deeper products add their k blocks at other boundaries.
     */
    public record Blocking(int kc, int mc, int nc) {
        /** {@link #KC} × {@link #MC} × {@link #NC}. */
        public static final Blocking DEFAULT = new Blocking(KC, MC, NC);

        public Blocking {
            if (kc < 1 || mc < MR || mc % MR != 0 || nc < NR || nc % NR != 0) {
                throw new IllegalArgumentException("VectorGemm blocking: kc >= 1, mc a positive multiple of " + MR
                        + " and nc a positive multiple of " + NR + " required, got kc " + kc + ", mc " + mc + ", nc " + nc);
            }
        }

        /** Parses "KCxMCxNC", e.g. "512x128x512". */
        public static Blocking parse(String spec) {
            String[] f = spec.split("x");
            if (f.length != 3) throw new IllegalArgumentException("VectorGemm blocking: expected KCxMCxNC, got '" + spec + "'");
            return new Blocking(Integer.parseInt(f[0].trim()), Integer.parseInt(f[1].trim()), Integer.parseInt(f[2].trim()));
        }

        @Override
        public String toString() {
            return kc + "x" + mc + "x" + nc;
        }
    }
    /**
     * Below this many flops (2mnk) a second core saves less than splitting C costs (each part
     * packs its own operands). Measured on the team, Zen 4, 2 cores: 96³ ran 1.5× faster split,
     * 128³ 1.3×, 64³ anywhere from 0.8× to 1.3×, 48³ slower. (On the ForkJoinPool, whose round
     * trip cost ~20–70 µs, the threshold was 144³.)
     */
    static final long PARALLEL_FLOPS = 2L * 96 * 96 * 96;

    /**
     * Products at least this deep may be cut along k (see {@link Split}): each of two slices then
     * spans two or more KC blocks.
     */
    static final int SPLIT_K_DEPTH = 2048;
    /**
     * Largest C (floats) a product is cut along k for: each extra slice writes a partial C of
     * this size from a fresh array and adds it back, which the cost model's per-element
     * estimate undercounts once C leaves the caches. Measured on Zen 4 in one JVM (15
     * alternated rounds): 2048³ (16 MiB of C) ran 4% faster as rectangles (won 14); the
     * weight gradients it is meant for (C of 1,024 × 256) split as before.
     */
    static final long SPLIT_K_MAX_C = 1L << 20;
    /** Tasks that add a k-split product's partial Cs: a few per thread, so a late thread holds up little. */
    private static final int REDUCE_BLOCKS = 8;

    /**
     * Most floats of packed A a rectangle wider than one B block keeps for all its column blocks
     * instead of packing them again for each (2 MiB per thread: 2,048 rows × 256 deep). Measured
     * on Zen 4, 2 cores, both ways alternated in one JVM (9 rounds): x·Wᵀ at 2048 × 1024 × 256
     * +3.0% (won 6), 2048 × 2048 × 256 +2.1% (8), row-major B 2048 × 1024 × 256 +1.3% (8),
     * 512 × 2048 × 256 +1.5% (5); 1024³ tied (−0.7%, 4): the deeper the product, the less
     * packing weighs against its multiply-adds.
     */
    static final long KEPT_A_FLOATS = 1L << 19;

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final TaskRunner runner;
    private final int threads;
    private final Blocking blocking;

    VectorGemm(TaskRunner runner) {
        this(runner, Blocking.DEFAULT);
    }

    VectorGemm(TaskRunner runner, Blocking blocking) {
        this.runner = runner;
        this.threads = runner.parallelism();
        this.blocking = blocking;
    }

    /**
     * A VectorGemm on the shared CPU team with another cache blocking: for benchmarks that compare
     * blockings. Callers should check {@link VectorSupport} first.
     */
    public static VectorGemm withBlocking(Blocking blocking) {
        return new VectorGemm(CpuThreads.team(), blocking);
    }

    /** A VectorGemm on a pool of its own (tests: a thread count other than the machine's). */
    VectorGemm(ForkJoinPool pool) {
        this(TaskRunner.of(pool));
    }

    /** A VectorGemm on the shared CPU team. Callers should check {@link VectorSupport} first. */
    static VectorGemm create() {
        return new VectorGemm(CpuThreads.team());
    }

    @Override
    public GemmPath path() {
        return GemmPath.VECTOR;
    }

    @Override
    public void sgemm(int m, int n, int k,
                      float[] a, int aOff, int aRowStride, int aColStride,
                      float[] b, int bOff, int bRowStride, int bColStride,
                      float[] c, int cOff, int ldc) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        run(new Problem(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc,
                null, 0, null, 0));
    }

    /** The bias is where each tile's accumulators start (the first k block), so it costs no pass over C. */
    @Override
    public void sgemmBias(int m, int n, int k,
                          float[] a, int aOff, int aRowStride, int aColStride,
                          float[] b, int bOff, int bRowStride, int bColStride,
                          float[] bias, int biasOff, float[] c, int cOff, int ldc) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        GemmChecks.checkVector("bias", bias, biasOff, n);
        Problem pr = new Problem(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc,
                bias, biasOff, null, 0);
        if (k == 0) {
            for (int i = 0; i < m; i++) System.arraycopy(bias, biasOff, c, cOff + i * ldc, n);
            return;
        }
        run(pr);
    }

    /** Every tile's accumulators start from C (as a second k block's do), so nothing else reads or writes C. */
    @Override
    public void sgemmAccumulate(int m, int n, int k,
                                float[] a, int aOff, int aRowStride, int aColStride,
                                float[] b, int bOff, int bRowStride, int bColStride,
                                float[] c, int cOff, int ldc) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        run(new Problem(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc,
                null, 0, null, 0, true));
    }

    /** The row sums are taken from A's packed blocks (in cache) by the threads that pack the first column block. */
    @Override
    public void sgemmRowSums(int m, int n, int k,
                             float[] a, int aOff, int aRowStride, int aColStride,
                             float[] b, int bOff, int bRowStride, int bColStride,
                             float[] c, int cOff, int ldc, float[] sums, int sumsOff) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        GemmChecks.checkVector("sums", sums, sumsOff, m);
        java.util.Arrays.fill(sums, sumsOff, sumsOff + m, 0f);
        if (n == 0) { // no column block is packed: sum A directly
            Gemm.super.sgemmRowSums(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc, sums, sumsOff);
            return;
        }
        run(new Problem(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc,
                null, 0, sums, sumsOff));
    }

    private void run(Problem pr) {
        if (pr.trivial()) {
            return;
        }
        if (threads == 1 || pr.flops() < PARALLEL_FLOPS) {
            sequential(pr);
        } else {
            parallel(pr);
        }
    }

    @Override
    public void sgemmBatched(int batch, int m, int n, int k,
                             float[] a, int aOff, int aBatchStride, int aRowStride, int aColStride,
                             float[] b, int bOff, int bBatchStride, int bRowStride, int bColStride,
                             float[] c, int cOff, int cBatchStride, int ldc) {
        GemmChecks.checkBatch(batch, aBatchStride, bBatchStride, cBatchStride);
        Problem[] problems = new Problem[batch];
        for (int t = 0; t < batch; t++) {
            int ao = aOff + t * aBatchStride, bo = bOff + t * bBatchStride, co = cOff + t * cBatchStride;
            GemmChecks.check(m, n, k, a, ao, aRowStride, aColStride, b, bo, bRowStride, bColStride, c, co, ldc);
            problems[t] = new Problem(m, n, k, a, ao, aRowStride, aColStride, b, bo, bRowStride, bColStride, c, co, ldc,
                    null, 0, null, 0);
        }
        if (batch == 0) {
            return;
        }
        if (problems[0].trivial()) { // same sizes for all: the others are trivial too (k = 0 zeroes each C)
            for (int t = 1; t < batch; t++) {
                problems[t].trivial();
            }
            return;
        }
        long flops = problems[0].flops();
        if (threads == 1 || batch == 1 || flops * batch < PARALLEL_FLOPS) {
            for (Problem pr : problems) {
                sequential(pr);
            }
        } else if (batch < 2 * threads && flops >= PARALLEL_FLOPS) {
            // too few problems to keep every core busy: split each one instead
            for (Problem pr : problems) {
                parallel(pr);
            }
        } else {
            // across the batch: no packing duplicated, one job for the lot, each entry a task
            runner.run(batch, t -> sequential(problems[t]));
        }
    }

    /** How many k slices a parallel product of this shape is cut into on {@code threads} threads (1: rectangles of C). */
    static int kParts(int m, int n, int k, int threads) {
        return Split.of(ceilDiv(m, MR), ceilDiv(n, NR), k, threads).kParts;
    }

    // ---------------------------------------------------------------- sequential

    private void sequential(Problem pr) {
        rectangle(pr, blocking, 0, pr.m, 0, pr.n);
    }

    /**
     * C[r0:r1, c0:c1] on the calling thread, with its own packed A and B. Never joins, so the
     * thread-local scratch cannot be re-entered by a stolen task.
     */
    static void rectangle(Problem pr, Blocking bl, int r0, int r1, int c0, int c1) {
        Scratch s = SCRATCH.get();
        int width = c1 - c0, rowsPacked = roundUp(r1 - r0, MR);
        boolean wide = width > bl.nc; // more than one B block: A's micro-panels outer (see the class comment)
        // A wide rectangle packs its rows of A once and rereads them for every block after the first
        boolean keepA = wide && (long) rowsPacked * pr.k <= KEPT_A_FLOATS;
        float[] bBuf = s.b(Math.min(bl.kc, pr.k) * roundUp(Math.min(bl.nc, width), NR));
        float[] aBuf = s.a(keepA ? rowsPacked * pr.k : Math.min(bl.kc, pr.k) * roundUp(Math.min(bl.mc, r1 - r0), MR));
        for (int jc = c0; jc < c1; jc += bl.nc) {
            int nc = Math.min(bl.nc, c1 - jc);
            int panels = (nc + NR - 1) / NR;
            for (int pc = 0; pc < pr.k; pc += bl.kc) {
                int kc = Math.min(bl.kc, pr.k - pc);
                if (pr.bCs == 1) {
                    VectorPacking.packB(pr.b, pr.bOff, pr.bRs, pc, kc, jc, nc, 0, panels, bBuf, 0);
                } else if (pr.bRs == 1 && VectorPacking.TRANSPOSES) {
                    VectorPacking.packBTransposed(pr.b, pr.bOff, pr.bCs, pc, kc, jc, nc, 0, panels, bBuf, 0);
                } else {
                    GemmPacking.packB(pr.b, pr.bOff, pr.bRs, pr.bCs, pc, kc, jc, nc, NR, 0, panels, bBuf, 0);
                }
                // kept, the (pc, ic) block of A sits at pc·rowsPacked + (ic - r0)·kc (earlier k blocks are all bl.kc deep)
                computeRows(pr, s, aBuf, keepA ? pc * rowsPacked : -1, !keepA || jc == c0, bBuf, r0, r1, bl.mc, jc, nc, pc, kc, wide);
            }
        }
    }

    /**
     * Rows [r0, r1) of C × the packed (jc, pc) block of B. With {@code keptAt} ≥ 0 the rectangle's
     * A blocks live in aBuf from there, packed on its first column block ({@code packA}); with -1
     * each A block is packed at 0 as it is reached.
     */
    private static void computeRows(Problem pr, Scratch s, float[] aBuf, int keptAt, boolean packA, float[] bBuf,
                                    int r0, int r1, int mcMax, int jc, int nc, int pc, int kc, boolean aPanelsOuter) {
        int panels = (nc + NR - 1) / NR;
        boolean accumulate = pc > 0 || pr.addToC;
        for (int ic = r0; ic < r1; ic += mcMax) {
            int mc = Math.min(mcMax, r1 - ic);
            int aBase = keptAt < 0 ? 0 : keptAt + (ic - r0) * kc;
            if (packA) {
                VectorPacking.packABlock(pr.a, pr.aOff, pr.aRs, pr.aCs, ic, mc, pc, kc, aBuf, aBase);
                if (pr.sums != null && jc == 0) {
                    VectorGemmKernels.addRowSums(aBuf, aBase, mc, kc, pr.sums, pr.sumsOff + ic);
                }
            }
            float[] bias = accumulate ? null : pr.bias;
            if (aPanelsOuter) { // a wide rectangle: each A micro-panel stays in L1 (see the class comment)
                for (int ir = 0; ir < mc; ir += MR) {
                    for (int q = 0; q < panels; q++) tile(pr, s, aBuf, bBuf, ic + ir, mc - ir, aBase + ir * kc, jc, nc, q, kc, accumulate, bias);
                }
            } else {
                for (int q = 0; q < panels; q++) {
                    for (int ir = 0; ir < mc; ir += MR) tile(pr, s, aBuf, bBuf, ic + ir, mc - ir, aBase + ir * kc, jc, nc, q, kc, accumulate, bias);
                }
            }
        }
    }

    /**
     * The micro-tile of C at row {@code row} (rowsLeft rows of the A block from there) and B panel
     * q of the (jc, nc) block: the kernel on C itself, or through scratch at an edge.
     */
    private static void tile(Problem pr, Scratch s, float[] aBuf, float[] bBuf, int row, int rowsLeft, int aAt,
                             int jc, int nc, int q, int kc, boolean accumulate, float[] bias) {
        int j = jc + q * NR, cols = Math.min(NR, nc - q * NR), rows = Math.min(MR, rowsLeft);
        int bAt = q * NR * kc;
        int cAt = pr.cOff + row * pr.ldc + j;
        if (rows == MR && cols == NR) {
            VectorGemmKernels.kernel(kc, aBuf, aAt, bBuf, bAt, pr.c, cAt, pr.ldc, accumulate, bias, pr.biasOff + j);
            return;
        }
        float[] edgeBias = bias == null ? null : s.edgeBias(bias, pr.biasOff + j, cols);
        if (rows == MR && cols <= VectorGemmKernels.L && VectorGemmKernels.NARROW) {
            VectorGemmKernels.narrowKernel(kc, aBuf, aAt, bBuf, bAt, pr.c, cAt, pr.ldc, cols, accumulate, edgeBias, 0);
        } else {
            edgeTile(kc, aBuf, aAt, bBuf, bAt, pr, cAt, rows, cols, accumulate, s.tile, edgeBias);
        }
    }

    /** A partial tile: the kernel writes a full scratch tile, of which rows×cols go to C. */
    private static void edgeTile(int kc, float[] aBuf, int aAt, float[] bBuf, int bAt, Problem pr,
                                 int cAt, int rows, int cols, boolean accumulate, float[] tile, float[] bias) {
        VectorGemmKernels.kernel(kc, aBuf, aAt, bBuf, bAt, tile, 0, NR, false, bias, 0);
        float[] c = pr.c;
        for (int r = 0; r < rows; r++) {
            int d = cAt + r * pr.ldc, t = r * NR;
            if (accumulate) {
                for (int j = 0; j < cols; j++) {
                    c[d + j] += tile[t + j];
                }
            } else {
                System.arraycopy(tile, t, c, d, cols);
            }
        }
    }

    // ---------------------------------------------------------------- parallel

    /**
     * One large product cut into one rectangle of C per thread. Each rectangle packs its own
     * A and B blocks: no barrier between packing and compute, no packed panel read across
     * cores, one job per call. The price — A packed once per column part, B once per
     * row part — is O((m+n)·k) against O(m·n·k) of compute.
     */
    private void parallel(Problem pr) {
        int mPanels = ceilDiv(pr.m, MR), nPanels = ceilDiv(pr.n, NR);
        Split split = Split.of(mPanels, nPanels, pr.k, threads);
        if (split.kParts > 1) {
            splitK(pr, split.kParts);
            return;
        }
        List<int[]> rects = new ArrayList<>(threads);
        for (int ti = 0; ti < split.rowParts; ti++) {
            int r0 = Math.min(pr.m, mPanels * ti / split.rowParts * MR);
            int r1 = Math.min(pr.m, mPanels * (ti + 1) / split.rowParts * MR);
            for (int tj = 0; tj < split.colParts; tj++) {
                int c0 = Math.min(pr.n, nPanels * tj / split.colParts * NR);
                int c1 = Math.min(pr.n, nPanels * (tj + 1) / split.colParts * NR);
                if (r0 < r1 && c0 < c1) {
                    rects.add(new int[] {r0, r1, c0, c1});
                }
            }
        }
        runner.run(rects.size(), t -> {
            int[] r = rects.get(t);
            rectangle(pr, blocking, r[0], r[1], r[2], r[3]);
        });
    }

    /**
     * The k-deep product with a small C (a weight gradient gᵀ·x): part t multiplies the k
     * slice [k·t/parts, k·(t+1)/parts) into a C of its own — part 0 into C itself, with the
     * bias and the row sums — and the partial Cs (and sums) are added to C in part order
     * after the job, so the result depends on the thread count only, never on timing.
     */
    private void splitK(Problem pr, int parts) {
        Problem[] slices = new Problem[parts];
        // the partial Cs: this thread's array from the last split, not a new one per call (every slice overwrites its C)
        float[] partials = SCRATCH.get().partials((parts - 1) * pr.m * pr.n);
        for (int t = 0; t < parts; t++) {
            int k0 = (int) ((long) pr.k * t / parts), k1 = (int) ((long) pr.k * (t + 1) / parts);
            boolean first = t == 0;
            slices[t] = new Problem(pr.m, pr.n, k1 - k0,
                    pr.a, pr.aOff + k0 * pr.aCs, pr.aRs, pr.aCs, pr.b, pr.bOff + k0 * pr.bRs, pr.bRs, pr.bCs,
                    first ? pr.c : partials, first ? pr.cOff : (t - 1) * pr.m * pr.n, first ? pr.ldc : pr.n,
                    first ? pr.bias : null, pr.biasOff,
                    first || pr.sums == null ? pr.sums : new float[pr.m], first ? pr.sumsOff : 0, first && pr.addToC);
        }
        runner.run(parts, t -> rectangle(slices[t], blocking, 0, slices[t].m, 0, slices[t].n));
        // the partials are added row block by row block on the team, each row in part order
        int blocks = Math.min(pr.m, REDUCE_BLOCKS);
        runner.run(blocks, blk -> {
            for (int i = (int) ((long) pr.m * blk / blocks), end = (int) ((long) pr.m * (blk + 1) / blocks); i < end; i++) {
                for (int t = 1; t < parts; t++) VectorGemmKernels.addInto(pr.c, pr.cOff + i * pr.ldc, partials, slices[t].cOff + i * pr.n, pr.n);
            }
        });
        for (int t = 1; pr.sums != null && t < parts; t++) {
            for (int i = 0; i < pr.m; i++) pr.sums[pr.sumsOff + i] += slices[t].sums[i];
        }
    }

    /**
     * How the work is cut among threads: rowParts × colParts rectangles of C (one per thread),
     * or kParts slices of k (one per thread, each with all of C), whichever costs the slowest
     * thread least. A rectangle packs A for its rows and B for its columns over all of k; a k
     * slice packs all rows of A and columns of B over its slice only, and a partial C is added
     * after the join.
     */
    private record Split(int rowParts, int colParts, int kParts) {
        /** Packing one element costs about as much as this many multiply-adds. */
        private static final int PACK_COST = 32;
        /** Adding one element of a partial C (two loads, an add, a store, on one thread), in multiply-adds. */
        private static final int REDUCE_COST = 4;

        static Split of(int mPanels, int nPanels, int k, int threads) {
            Split best = null;
            long bestCost = Long.MAX_VALUE;
            for (int rp = 1; rp <= threads; rp++) {
                if (threads % rp != 0) {
                    continue;
                }
                int cp = threads / rp;
                long rows = (long) ceilDiv(mPanels, rp) * MR, cols = (long) ceilDiv(nPanels, cp) * NR;
                long cost = (rows * cols + PACK_COST * (rows + cols)) * k;
                if (cost < bestCost) {
                    best = new Split(rp, cp, 1);
                    bestCost = cost;
                }
            }
            long rows = (long) mPanels * MR, cols = (long) nPanels * NR;
            if (k >= SPLIT_K_DEPTH && rows * cols <= SPLIT_K_MAX_C) {
                long slice = ceilDiv(k, threads);
                long cost = (rows * cols + PACK_COST * (rows + cols)) * slice + REDUCE_COST * rows * cols * (threads - 1);
                if (cost < bestCost) {
                    best = new Split(1, 1, threads);
                }
            }
            return best;
        }
    }

    // ---------------------------------------------------------------- plumbing

    record Problem(int m, int n, int k,
                           float[] a, int aOff, int aRs, int aCs,
                           float[] b, int bOff, int bRs, int bCs,
                           float[] c, int cOff, int ldc,
                           float[] bias, int biasOff, float[] sums, int sumsOff, boolean addToC) {
        /** A product that overwrites C ({@code addToC} false). */
        Problem(int m, int n, int k, float[] a, int aOff, int aRs, int aCs, float[] b, int bOff, int bRs, int bCs,
                float[] c, int cOff, int ldc, float[] bias, int biasOff, float[] sums, int sumsOff) {
            this(m, n, k, a, aOff, aRs, aCs, b, bOff, bRs, bCs, c, cOff, ldc, bias, biasOff, sums, sumsOff, false);
        }

        long flops() {
            return 2L * m * n * k;
        }

        /** True (and C already written: zeroed, or left as it is when adding to it) when there is nothing to multiply. */
        boolean trivial() {
            if (m == 0 || n == 0) {
                return true;
            }
            if (k == 0) {
                for (int i = 0; !addToC && i < m; i++) {
                    java.util.Arrays.fill(c, cOff + i * ldc, cOff + i * ldc + n, 0f);
                }
                return true;
            }
            return false;
        }
    }

    /** Per-thread packing buffers. Only code that never joins touches them, so no task can steal them. */
    private static final class Scratch {
        private float[] a = new float[0];
        final float[] tile = new float[MR * NR];
        private final float[] bias = new float[NR];
        private float[] b = new float[0];

        /** bias[off, off + cols) padded with zeros to NR: the bias of an edge tile. */
        float[] edgeBias(float[] from, int off, int cols) {
            System.arraycopy(from, off, bias, 0, cols);
            java.util.Arrays.fill(bias, cols, NR, 0f);
            return bias;
        }

        float[] a(int size) {
            if (a.length < size) {
                a = new float[size];
            }
            return a;
        }

        float[] b(int size) {
            if (b.length < size) {
                b = new float[size];
            }
            return b;
        }

        private float[] partials = new float[0];

        /** At least {@code size} floats of unspecified contents for a k split's partial Cs. */
        float[] partials(int size) {
            if (partials.length < size) {
                partials = new float[size];
            }
            return partials;
        }
    }

    private static int roundUp(int x, int to) {
        return (x + to - 1) / to * to;
    }

    private static int ceilDiv(int x, int y) {
        return (x + y - 1) / y;
    }
}
