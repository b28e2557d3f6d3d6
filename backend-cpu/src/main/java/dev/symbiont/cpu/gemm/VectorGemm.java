package dev.symbiont.cpu.gemm;

import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.TaskRunner;
import dev.symbiont.cpu.gemm.VectorGemmLoops.Problem;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;

import static dev.symbiont.cpu.gemm.GemmSplit.ceilDiv;

/**
 * Vector-API GEMM in the BLIS/GotoBLAS layout.
 *
 * <pre>
 * C is cut into one rectangle per thread (rows × columns, see GemmSplit); each rectangle runs
 * for jc in its columns by NC                 B block  KC×NC  (per thread, in L2)
 *   for pc in K by KC:  pack B
 *     for ic in its rows by MC:  pack A       A block  MC×KC  (per thread, in L2)
 *       for jr in B panels                    B micro-panel KC×NR (in L1 when it fits)
 *         for ir in A panels:  micro-kernel MR×NR, accumulators in registers
 * </pre>
 *
 * Packing per thread rather than one shared B block was measured: sharing needs a barrier
 * per block and makes each core read half its panels from the other core's cache, and ran
 * at about half the speed on two cores. Small problems run on the calling thread;
 * {@link #sgemmBatched} runs small problems in parallel across the batch. All threads come
 * from {@link CpuThreads#team()}.
 *
 * <p>This class holds the entry points, the blocking and the scheduling of rectangles on
 * threads; one rectangle's loops are {@link VectorGemmLoops} (where a rectangle wider than one
 * B block swaps the two inner loops and keeps its packed A), the packing {@link VectorPacking},
 * the micro-kernels {@link VectorGemmKernels} and the choice of split {@link GemmSplit}.
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
     * keep A's micro-panels in L1 (see {@link VectorGemmLoops}). The default is the measured
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

    /** Tasks that add a k-split product's partial Cs: a few per thread, so a late thread holds up little. */
    private static final int REDUCE_BLOCKS = 8;

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
        return GemmSplit.of(ceilDiv(m, MR), ceilDiv(n, NR), k, threads).kParts();
    }

    // ---------------------------------------------------------------- sequential

    private void sequential(Problem pr) {
        VectorGemmLoops.rectangle(pr, blocking, 0, pr.m(), 0, pr.n());
    }

    // ---------------------------------------------------------------- parallel

    /**
     * One large product cut into one rectangle of C per thread. Each rectangle packs its own
     * A and B blocks: no barrier between packing and compute, no packed panel read across
     * cores, one job per call. The price — A packed once per column part, B once per
     * row part — is O((m+n)·k) against O(m·n·k) of compute.
     */
    private void parallel(Problem pr) {
        int mPanels = ceilDiv(pr.m(), MR), nPanels = ceilDiv(pr.n(), NR);
        GemmSplit split = GemmSplit.of(mPanels, nPanels, pr.k(), threads);
        if (split.kParts() > 1) {
            splitK(pr, split.kParts());
            return;
        }
        List<int[]> rects = new ArrayList<>(threads);
        for (int ti = 0; ti < split.rowParts(); ti++) {
            int r0 = Math.min(pr.m(), mPanels * ti / split.rowParts() * MR);
            int r1 = Math.min(pr.m(), mPanels * (ti + 1) / split.rowParts() * MR);
            for (int tj = 0; tj < split.colParts(); tj++) {
                int c0 = Math.min(pr.n(), nPanels * tj / split.colParts() * NR);
                int c1 = Math.min(pr.n(), nPanels * (tj + 1) / split.colParts() * NR);
                if (r0 < r1 && c0 < c1) {
                    rects.add(new int[] {r0, r1, c0, c1});
                }
            }
        }
        runner.run(rects.size(), t -> {
            int[] r = rects.get(t);
            VectorGemmLoops.rectangle(pr, blocking, r[0], r[1], r[2], r[3]);
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
        float[] partials = VectorGemmLoops.partials((parts - 1) * pr.m() * pr.n());
        for (int t = 0; t < parts; t++) {
            int k0 = (int) ((long) pr.k() * t / parts), k1 = (int) ((long) pr.k() * (t + 1) / parts);
            boolean first = t == 0;
            slices[t] = new Problem(pr.m(), pr.n(), k1 - k0,
                    pr.a(), pr.aOff() + k0 * pr.aCs(), pr.aRs(), pr.aCs(), pr.b(), pr.bOff() + k0 * pr.bRs(), pr.bRs(), pr.bCs(),
                    first ? pr.c() : partials, first ? pr.cOff() : (t - 1) * pr.m() * pr.n(), first ? pr.ldc() : pr.n(),
                    first ? pr.bias() : null, pr.biasOff(),
                    first || pr.sums() == null ? pr.sums() : new float[pr.m()], first ? pr.sumsOff() : 0, first && pr.addToC());
        }
        runner.run(parts, t -> VectorGemmLoops.rectangle(slices[t], blocking, 0, slices[t].m(), 0, slices[t].n()));
        // the partials are added row block by row block on the team, each row in part order
        int blocks = Math.min(pr.m(), REDUCE_BLOCKS);
        runner.run(blocks, blk -> {
            for (int i = (int) ((long) pr.m() * blk / blocks), end = (int) ((long) pr.m() * (blk + 1) / blocks); i < end; i++) {
                for (int t = 1; t < parts; t++) VectorGemmKernels.addInto(pr.c(), pr.cOff() + i * pr.ldc(), partials, slices[t].cOff() + i * pr.n(), pr.n());
            }
        });
        for (int t = 1; pr.sums() != null && t < parts; t++) {
            for (int i = 0; i < pr.m(); i++) pr.sums()[pr.sumsOff() + i] += slices[t].sums()[i];
        }
    }
}
