package dev.symbiont.cpu.kernels;

/**
 * Mamba's selective scan fused into one pass over L per (batch, channel), as mamba-ssm's
 * kernel does it: the N-dimensional state (from 0 or a given initial state) lives in a scratch row, ΔA = exp(dt·A) and
 * ΔB·u = dt·B·u are formed one step at a time and never stored, and C reads each state as it
 * is made. Nothing of size L·N per channel is allocated. Work runs in parallel over
 * batch × d_inner.
 *
 * <p>The per-step work runs across the states ({@link ScanMath}: a vector of states at a time,
 * or its scalar twin). For that B and C are copied once per call into (batch, G, L, width)
 * rows — one step's states consecutive, N padded with zeros to whole vectors — a scratch of
 * batch·G·L·width floats that callers never see.
 *
 * <p>The forward saves the state at the start of every chunk of {@link #CHUNK} steps
 * (batch, d_inner, ⌈L/CHUNK⌉, width); the backward walks the chunks from last to first,
 * recomputes the chunk's states and ΔA from its checkpoint, and runs the adjoint recurrence
 * gh_l = gy_l·C_l + ΔA_{l+1}·gh_{l+1} through them. Gradients of B and C sum over the
 * channels of a group, and those of A, D and deltaBias over the batch: each parallel task
 * accumulates into its own slice, reduced at the end, so results do not depend on timing.
 *
 * <p>Operands are read in place through their strides (see {@link Strided}).
 */
public final class SelectiveScan {
    private SelectiveScan() {}

    /** Steps between saved states: the backward recomputes at most this many states per channel. */
    public static final int CHUNK = 64;

    /** A float32 operand of rank ≤ 4 read through its offset and strides (0 for absent dims). */
    public record Strided(float[] data, int offset, int s0, int s1, int s2, int s3) {}

    /**
     * The problem: u, delta, z, gradOut (batch, channels, len); A (channels, n); B and C
     * (batch, groups, n, len); D and bias (channels); h0, the initial state (batch, channels, n)
     * — D, z, bias and h0 may be null.
     */
    public record Problem(int batch, int channels, int len, int n, int groups, Strided u, Strided delta, Strided a,
                          Strided b, Strided c, Strided d, Strided z, Strided bias, Strided h0, boolean softplus,
                          ScanMath math) {
        public int chunks() { return (len + CHUNK - 1) / CHUNK; }
        /** Floats per saved state: N padded to the kernel's row width. */
        public int width() { return math.width(n); }
        /** Floats of the forward's checkpoints, (batch, channels, chunks, width). */
        public int checkpointSize() { return items() * chunks() * width(); }
        int items() { return batch * channels; }
        int grain() { return Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, len * n)); }
        /** Floats of one (batch, G, L, width) copy of B or C, or of one task's partial dB or dC. */
        int rowsSize() { return batch * groups * len * width(); }
    }

    /**
     * The forward: {@code out} (batch, channels, len) contiguous, {@code checkpoints}
     * ({@link Problem#checkpointSize}), and {@code last} (batch, channels, n) or null.
     */
    public static void forward(Problem p, float[] out, float[] checkpoints, float[] last) {
        int w = p.width();
        float[] bRows = rows(p, p.b()), cRows = rows(p, p.c());
        Parallel.forRange(p.items(), p.grain(), (from, to) -> {
            ScanScratch x = new ScanScratch(w, CHUNK);
            for (int item = from; item < to; item++) {
                int bb = item / p.channels(), k = item % p.channels();
                initialState(p, bb, k, x.hs);
                row(p, k, x.a);
                Channel ch = new Channel(p, bb, k);
                for (int l = 0; l < p.len(); l++) {
                    if (l % CHUNK == 0) {
                        System.arraycopy(x.hs, 0, checkpoints, (item * p.chunks() + l / CHUNK) * w, w);
                        steps(p, ch, l, Math.min(p.len(), l + CHUNK), x);
                    }
                    float dt = x.dts[l % CHUNK], uv = at(p.u(), ch.u, l, p.u().s2());
                    int bl = ch.rows + l * w;
                    float y = p.math().advance(x, 0, 0, dt, dt * uv, bRows, bl, cRows, bl);
                    float o = y + ch.skip * uv;
                    out[item * p.len() + l] = p.z() == null ? o : o * silu(at(p.z(), ch.z, l, p.z().s2()));
                }
                if (last != null) System.arraycopy(x.hs, 0, last, item * p.n(), p.n());
            }
        });
    }

    /** Where the backward writes; dD, dz, dBias and dh0 (batch, channels, n) are null when the input is absent. */
    public record Grads(float[] du, float[] ddelta, float[] dA, float[] dB, float[] dC, float[] dD, float[] dz,
                        float[] dBias, float[] dh0) {}

    /** The most tasks the backward splits into: each holds a (batch, G, L, width) partial of dB and of dC. */
    static final int MAX_TASKS = 16;

    /** How many tasks the backward runs, each summing its channels' dB and dC into its own slice. */
    public static int partialSlices(Problem p) {
        return Math.min(MAX_TASKS, Parallel.chunks(p.items(), p.grain()));
    }

    /** Floats of the backward's partialB or partialC scratch: {@link #partialSlices} × (batch, G, L, width). */
    public static int partialSize(Problem p) { return partialSlices(p) * p.rowsSize(); }

    /**
     * The backward from {@code gradOut} (read through its strides) and the forward's checkpoints.
     *
     * @param partB   scratch of {@link #partialSize} floats, zero: per-task dB
     * @param partC   as partB, for dC
     * @param perItem scratch of (batch·channels) × (n + 2), zero: per-item dA, dD and dBias before the sum over batch
     * @param g       every output, zero-filled; dB and dC (batch, groups, n, len), dA (channels, n)
     */
    public static void backward(Problem p, Strided gradOut, float[] checkpoints, float[] partB, float[] partC,
                                float[] perItem, Grads g) {
        int slices = partialSlices(p);
        float[] bRows = rows(p, p.b()), cRows = rows(p, p.c());
        Parallel.forChunks(slices, 1, (unused, firstTask, endTask) -> {
            ScanScratch x = new ScanScratch(p.width(), CHUNK);
            for (int task = firstTask; task < endTask; task++) {
                int end = Parallel.start(p.items(), slices, task + 1);
                for (int item = Parallel.start(p.items(), slices, task); item < end; item++) {
                    backwardItem(p, gradOut, checkpoints, bRows, cRows, partB, partC, task * p.rowsSize(), perItem, g, item, x);
                }
            }
        });
        reduce(p, partB, partC, perItem, g);
    }

    /** The backward of one (batch, channel): the chunks from last to first, each recomputed from its checkpoint. */
    private static void backwardItem(Problem p, Strided gradOut, float[] checkpoints, float[] bRows, float[] cRows,
                                     float[] partB, float[] partC, int slice, float[] perItem, Grads g, int item,
                                     ScanScratch x) {
        int n = p.n(), w = x.width, bb = item / p.channels(), k = item % p.channels();
        row(p, k, x.a);
        Channel ch = new Channel(p, bb, k);
        int gBase = gradOut.offset() + bb * gradOut.s0() + k * gradOut.s1();
        int part = slice + ch.rows;                                // the same rows in this task's partials
        java.util.Arrays.fill(x.dh, 0f);
        java.util.Arrays.fill(x.dA, 0f);
        float dSkip = 0, dBias = 0;
        for (int chunk = p.chunks() - 1; chunk >= 0; chunk--) {
            int l0 = chunk * CHUNK, l1 = Math.min(p.len(), l0 + CHUNK);
            System.arraycopy(checkpoints, (item * p.chunks() + chunk) * w, x.hs, 0, w);
            steps(p, ch, l0, l1, x);
            for (int l = l0; l < l1; l++) {                       // the chunk's states, ΔA and y again
                int j = l - l0, bl = ch.rows + l * w;
                float dt = x.dts[j], uv = at(p.u(), ch.u, l, p.u().s2());
                x.ys[j] = p.math().advance(x, j * w, (j + 1) * w, dt, dt * uv, bRows, bl, cRows, bl);
            }
            for (int l = l1 - 1; l >= l0; l--) {
                int j = l - l0, i = item * p.len() + l, bl = ch.rows + l * w, pl = part + l * w;
                float dt = x.dts[j], uv = at(p.u(), ch.u, l, p.u().s2()), go = at(gradOut, gBase, l, gradOut.s2());
                float gy = go;                                    // out = (y + D·u)·silu(z)
                if (p.z() != null) {
                    float zv = at(p.z(), ch.z, l, p.z().s2()), sig = sigmoid(zv);
                    g.dz()[i] = go * (x.ys[j] + ch.skip * uv) * sig * (1 + zv * (1 - sig));
                    gy = go * zv * sig;
                }
                dSkip += gy * uv;
                p.math().adjoint(x, j, dt, gy, dt * uv, bRows, bl, cRows, bl, partB, pl, partC, pl);
                float ddt = x.sumDecayA + x.sumAdjointB * uv;      // through ΔA = exp(dt·A) and ΔB·u = dt·B·u
                float ddelta = p.softplus() ? ddt * sigmoid(ch.deltaBias + at(p.delta(), ch.delta, l, p.delta().s2())) : ddt;
                g.du()[i] = gy * ch.skip + dt * x.sumAdjointB;
                g.ddelta()[i] = ddelta;
                dBias += ddelta;
            }
        }
        System.arraycopy(x.dA, 0, perItem, item * (n + 2), n);
        if (g.dh0() != null) System.arraycopy(x.dh, 0, g.dh0(), item * n, n);   // dh0 = ΔA_0·gh_0, the carry past l = 0
        perItem[item * (n + 2) + n] = dSkip;
        perItem[item * (n + 2) + n + 1] = dBias;
    }

    /** B or C (batch, G, n, L) copied to (batch, G, L, width) rows, the states past n zero. */
    private static float[] rows(Problem p, Strided t) {
        int w = p.width(), len = p.len();
        float[] rows = new float[p.rowsSize()];
        for (int bg = 0; bg < p.batch() * p.groups(); bg++) {
            int base = t.offset() + (bg / p.groups()) * t.s0() + (bg % p.groups()) * t.s1();
            for (int s = 0; s < p.n(); s++) {
                int from = base + s * t.s2(), to = bg * len * w + s;
                for (int l = 0; l < len; l++) rows[to + l * w] = t.data()[from + l * t.s3()];
            }
        }
        return rows;
    }

    /** Sums the per-task dB, dC slices back into (batch, G, n, L), and the per-item dA, dD, dBias over the batch. */
    private static void reduce(Problem p, float[] partB, float[] partC, float[] perItem, Grads g) {
        int slices = partialSlices(p), n = p.n(), w = p.width(), len = p.len(), rowsSize = p.rowsSize();
        Parallel.forRange(p.batch() * p.groups() * n, Parallel.rowGrain(len * slices), (from, to) -> {
            for (int r = from; r < to; r++) {                    // r = (batch·G + group)·n + s, one output row of L
                int bg = r / n, s = r % n, src = bg * len * w + s;
                for (int t = 0; t < slices; t++) {
                    int slice = t * rowsSize + src;
                    for (int l = 0; l < len; l++) {
                        g.dB()[r * len + l] += partB[slice + l * w];
                        g.dC()[r * len + l] += partC[slice + l * w];
                    }
                }
            }
        });
        for (int bb = 0; bb < p.batch(); bb++) {
            for (int k = 0; k < p.channels(); k++) {
                int base = (bb * p.channels() + k) * (n + 2);
                for (int s = 0; s < n; s++) g.dA()[k * n + s] += perItem[base + s];
                if (g.dD() != null) g.dD()[k] += perItem[base + n];
                if (g.dBias() != null) g.dBias()[k] += perItem[base + n + 1];
            }
        }
    }

    /** Base offsets of one (batch, channel) in every operand, and its per-channel scalars. */
    private static final class Channel {
        /** rows: where the channel's group starts in a (batch, G, L, width) copy of B or C. */
        final int u, delta, z, rows, group;
        final float skip, deltaBias;

        Channel(Problem p, int bb, int k) {
            group = k / (p.channels() / p.groups());
            u = base(p.u(), bb, k);
            delta = base(p.delta(), bb, k);
            z = p.z() == null ? 0 : base(p.z(), bb, k);
            rows = (bb * p.groups() + group) * p.len() * p.width();
            skip = p.d() == null ? 0 : p.d().data()[p.d().offset() + k * p.d().s0()];
            deltaBias = p.bias() == null ? 0 : p.bias().data()[p.bias().offset() + k * p.bias().s0()];
        }

        private static int base(Strided t, int bb, int k) { return t.offset() + bb * t.s0() + k * t.s1(); }
    }

    /** dt for the steps [l0, l1) of a chunk into {@code x.dts}: delta + deltaBias, through softplus when asked. */
    private static void steps(Problem p, Channel ch, int l0, int l1, ScanScratch x) {
        for (int l = l0; l < l1; l++) x.dts[l - l0] = ch.deltaBias + at(p.delta(), ch.delta, l, p.delta().s2());
        if (p.softplus()) p.math().softplus(x.dts, l1 - l0);
    }

    private static float at(Strided t, int base, int l, int stride) { return t.data()[base + l * stride]; }

    /** h_{−1} of (batch bb, channel k) into the first row of {@code hs}: the initial state, or 0; zeros past n. */
    private static void initialState(Problem p, int bb, int k, float[] hs) {
        java.util.Arrays.fill(hs, 0f);
        Strided h0 = p.h0();
        if (h0 == null) return;
        for (int s = 0; s < p.n(); s++) hs[s] = h0.data()[h0.offset() + bb * h0.s0() + k * h0.s1() + s * h0.s2()];
    }

    /** Row k of A (channels, n) into {@code into}, zeros past n. */
    private static void row(Problem p, int k, float[] into) {
        Strided a = p.a();
        for (int s = 0; s < into.length; s++) into[s] = s < p.n() ? a.data()[a.offset() + k * a.s0() + s * a.s1()] : 0;
    }

    private static float sigmoid(float x) { return (float) (1 / (1 + Math.exp(-x))); }

    private static float silu(float x) { return x * sigmoid(x); }
}
