package dev.symbiont.cpu.kernels;

/**
 * Mamba's selective scan fused into one pass over L per (batch, channel), as mamba-ssm's
 * kernel does it: the N-dimensional state lives in a local array, ΔA = exp(dt·A) and
 * ΔB·u = dt·B·u are formed one step at a time and never stored, and C reads each state as it
 * is made. Nothing of size L·N is allocated. Work runs in parallel over batch × d_inner.
 *
 * <p>The forward saves the state at the start of every chunk of {@link #CHUNK} steps
 * (batch, d_inner, ⌈L/CHUNK⌉, N); the backward walks the chunks from last to first, recomputes
 * the chunk's states from its checkpoint into a CHUNK × N scratch, and runs the adjoint
 * recurrence gh_l = gy_l·C_l + ΔA_{l+1}·gh_{l+1} through it. Gradients of B and C sum over the
 * channels of a group, and those of A, D and deltaBias over the batch: each parallel task
 * accumulates into its own slice, reduced at the end, so results do not depend on timing.
 *
 * <p>Operands are read in place through their strides (see {@link Strided}). ΔA's exp runs
 * on {@link ScanMath}: the Vector API across the N states, or its scalar twin.
 */
public final class SelectiveScan {
    private SelectiveScan() {}

    /** Steps between saved states: the backward recomputes at most this many states per channel. */
    public static final int CHUNK = 64;
    private static final double SOFTPLUS_THRESHOLD = 20.0; // PyTorch's and the reference's

    /** A float32 operand of rank ≤ 4 read through its offset and strides (0 for absent dims). */
    public record Strided(float[] data, int offset, int s0, int s1, int s2, int s3) {}

    /**
     * The problem: u, delta, z, gradOut (batch, channels, len); A (channels, n); B and C
     * (batch, groups, n, len); D and bias (channels) — D, z and bias may be null.
     */
    public record Problem(int batch, int channels, int len, int n, int groups, Strided u, Strided delta, Strided a,
                          Strided b, Strided c, Strided d, Strided z, Strided bias, boolean softplus, ScanMath math) {
        public int chunks() { return (len + CHUNK - 1) / CHUNK; }
        int items() { return batch * channels; }
        int grain() { return Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, len * n)); }
    }

    /**
     * The forward: {@code out} (batch, channels, len) contiguous, {@code checkpoints}
     * (batch, channels, chunks, n), and {@code last} (batch, channels, n) or null.
     */
    public static void forward(Problem p, float[] out, float[] checkpoints, float[] last) {
        Parallel.forRange(p.items(), p.grain(), (from, to) -> {
            float[] h = new float[p.n()], aRow = new float[p.n()], decay = new float[p.n()];
            for (int item = from; item < to; item++) {
                int bb = item / p.channels(), k = item % p.channels();
                java.util.Arrays.fill(h, 0f);
                row(p.a(), k, aRow);
                Channel ch = new Channel(p, bb, k);
                for (int l = 0; l < p.len(); l++) {
                    if (l % CHUNK == 0) System.arraycopy(h, 0, checkpoints, (item * p.chunks() + l / CHUNK) * p.n(), p.n());
                    float dt = dt(p, ch, l), uv = at(p.u(), ch.u, l, p.u().s2()), y = 0;
                    int bl = ch.b + l * p.b().s3(), cl = ch.c + l * p.c().s3();
                    p.math().decay(dt, aRow, decay, p.n());
                    for (int s = 0; s < p.n(); s++) {
                        h[s] = decay[s] * h[s] + dt * p.b().data()[bl + s * p.b().s2()] * uv;
                        y += h[s] * p.c().data()[cl + s * p.c().s2()];
                    }
                    float o = y + ch.skip * uv;
                    out[item * p.len() + l] = p.z() == null ? o : o * silu(at(p.z(), ch.z, l, p.z().s2()));
                }
                if (last != null) System.arraycopy(h, 0, last, item * p.n(), p.n());
            }
        });
    }

    /** Where the backward writes; dD, dz and dBias are null when the input is absent. */
    public record Grads(float[] du, float[] ddelta, float[] dA, float[] dB, float[] dC, float[] dD, float[] dz,
                        float[] dBias) {}

    /** The most tasks the backward splits into: each holds a (batch, G, N, L) partial of dB and of dC. */
    static final int MAX_TASKS = 16;

    /** How many tasks the backward runs, each summing its channels' dB and dC into its own slice. */
    public static int partialSlices(Problem p) {
        return Math.min(MAX_TASKS, Parallel.chunks(p.items(), p.grain()));
    }

    /**
     * The backward from {@code gradOut} (read through its strides) and the forward's checkpoints.
     *
     * @param partB   scratch of {@link #partialSlices} × (batch, groups, n, len), zero: per-task dB
     * @param partC   as partB, for dC
     * @param perItem scratch of (batch·channels) × (n + 2), zero: per-item dA, dD and dBias before the sum over batch
     * @param g       every output, zero-filled; dB and dC (batch, groups, n, len), dA (channels, n)
     */
    public static void backward(Problem p, Strided gradOut, float[] checkpoints, float[] partB, float[] partC,
                                float[] perItem, Grads g) {
        int bcSize = p.batch() * p.groups() * p.n() * p.len(), slices = partialSlices(p);
        Parallel.forChunks(slices, 1, (unused, firstTask, endTask) -> {
            Scratch scratch = new Scratch(p.n());
            for (int task = firstTask; task < endTask; task++) {
                int end = Parallel.start(p.items(), slices, task + 1);
                for (int item = Parallel.start(p.items(), slices, task); item < end; item++) {
                    backwardItem(p, gradOut, checkpoints, partB, partC, task * bcSize, perItem, g, item, scratch);
                }
            }
        });
        reduce(p, partB, partC, perItem, g, bcSize);
    }

    /** One task's scratch: a chunk of states and steps, the adjoint carry and a row of A. */
    private record Scratch(float[] hs, float[] dts, float[] dh, float[] aRow, float[] decay) {
        Scratch(int n) { this(new float[CHUNK * n], new float[CHUNK], new float[n], new float[n], new float[n]); }
    }

    /** The backward of one (batch, channel): the chunks from last to first, each recomputed from its checkpoint. */
    private static void backwardItem(Problem p, Strided gradOut, float[] checkpoints, float[] partB, float[] partC,
                                     int slice, float[] perItem, Grads g, int item, Scratch scratch) {
        int n = p.n(), bb = item / p.channels(), k = item % p.channels();
        float[] hs = scratch.hs(), dts = scratch.dts(), dh = scratch.dh(), aRow = scratch.aRow(), decays = scratch.decay();
        row(p.a(), k, aRow);
        Channel ch = new Channel(p, bb, k);
        int gBase = gradOut.offset() + bb * gradOut.s0() + k * gradOut.s1();
        int bcBase = slice + ((bb * p.groups() + ch.group) * n) * p.len();
        java.util.Arrays.fill(dh, 0f);
        float dSkip = 0, dBias = 0;
        for (int chunk = p.chunks() - 1; chunk >= 0; chunk--) {
            int l0 = chunk * CHUNK, l1 = Math.min(p.len(), l0 + CHUNK);
            int ckpt = (item * p.chunks() + chunk) * n;
            recompute(p, ch, aRow, checkpoints, ckpt, l0, l1, hs, dts, decays);
            for (int l = l1 - 1; l >= l0; l--) {
                int j = l - l0, i = item * p.len() + l, bl = ch.b + l * p.b().s3(), cl = ch.c + l * p.c().s3();
                float dt = dts[j], uv = at(p.u(), ch.u, l, p.u().s2()), go = at(gradOut, gBase, l, gradOut.s2());
                float y = 0;
                for (int s = 0; s < n; s++) y += hs[j * n + s] * p.c().data()[cl + s * p.c().s2()];
                float gy = go;                                    // out = (y + D·u)·silu(z)
                if (p.z() != null) {
                    float zv = at(p.z(), ch.z, l, p.z().s2()), sig = sigmoid(zv);
                    g.dz()[i] = go * (y + ch.skip * uv) * sig * (1 + zv * (1 - sig));
                    gy = go * zv * sig;
                }
                dSkip += gy * uv;
                float du = gy * ch.skip, ddt = 0;
                p.math().decay(dt, aRow, decays, n);
                for (int s = 0; s < n; s++) {
                    float bv = p.b().data()[bl + s * p.b().s2()], cv = p.c().data()[cl + s * p.c().s2()];
                    float h = hs[j * n + s], hPrev = j > 0 ? hs[(j - 1) * n + s] : checkpoints[ckpt + s];
                    float gh = dh[s] + gy * cv;                   // adjoint of h_l
                    float decay = decays[s];
                    float dExponent = gh * hPrev * decay;         // through ΔA = exp(dt·A)
                    perItem[item * (n + 2) + s] += dExponent * dt;
                    ddt += dExponent * aRow[s] + gh * bv * uv;    // and through ΔB·u = dt·B·u
                    du += gh * dt * bv;
                    partB[bcBase + s * p.len() + l] += gh * dt * uv;
                    partC[bcBase + s * p.len() + l] += gy * h;
                    dh[s] = decay * gh;
                }
                float ddelta = p.softplus() ? ddt * sigmoid(ch.deltaBias + at(p.delta(), ch.delta, l, p.delta().s2())) : ddt;
                g.du()[i] = du;
                g.ddelta()[i] = ddelta;
                dBias += ddelta;
            }
        }
        perItem[item * (n + 2) + n] = dSkip;
        perItem[item * (n + 2) + n + 1] = dBias;
    }

    /** The states h_l for l in [l0, l1) into hs (and dt_l into dts), from the checkpoint at the chunk's start. */
    private static void recompute(Problem p, Channel ch, float[] aRow, float[] checkpoints, int ckpt, int l0, int l1,
                                  float[] hs, float[] dts, float[] decay) {
        int n = p.n();
        for (int l = l0; l < l1; l++) {
            int j = l - l0, bl = ch.b + l * p.b().s3();
            float dt = dt(p, ch, l), uv = at(p.u(), ch.u, l, p.u().s2());
            dts[j] = dt;
            p.math().decay(dt, aRow, decay, n);
            for (int s = 0; s < n; s++) {
                float prev = j > 0 ? hs[(j - 1) * n + s] : checkpoints[ckpt + s];
                hs[j * n + s] = decay[s] * prev + dt * p.b().data()[bl + s * p.b().s2()] * uv;
            }
        }
    }

    /** Sums the per-task dB, dC slices and the per-item dA, dD, dBias over the batch. */
    private static void reduce(Problem p, float[] partB, float[] partC, float[] perItem, Grads g, int bcSize) {
        int slices = partialSlices(p), n = p.n();
        Parallel.forRange(bcSize, Parallel.ELEMENT_GRAIN, (from, to) -> {
            for (int t = 0; t < slices; t++) {
                for (int i = from; i < to; i++) {
                    g.dB()[i] += partB[t * bcSize + i];
                    g.dC()[i] += partC[t * bcSize + i];
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
        final int u, delta, z, b, c, group;
        final float skip, deltaBias;

        Channel(Problem p, int bb, int k) {
            group = k / (p.channels() / p.groups());
            u = base(p.u(), bb, k);
            delta = base(p.delta(), bb, k);
            z = p.z() == null ? 0 : base(p.z(), bb, k);
            b = p.b().offset() + bb * p.b().s0() + group * p.b().s1();
            c = p.c().offset() + bb * p.c().s0() + group * p.c().s1();
            skip = p.d() == null ? 0 : p.d().data()[p.d().offset() + k * p.d().s0()];
            deltaBias = p.bias() == null ? 0 : p.bias().data()[p.bias().offset() + k * p.bias().s0()];
        }

        private static int base(Strided t, int bb, int k) { return t.offset() + bb * t.s0() + k * t.s1(); }
    }

    private static float dt(Problem p, Channel ch, int l) {
        float x = ch.deltaBias + at(p.delta(), ch.delta, l, p.delta().s2());
        return p.softplus() ? (x > SOFTPLUS_THRESHOLD ? x : (float) Math.log1p(Math.exp(x))) : x;
    }

    private static float at(Strided t, int base, int l, int stride) { return t.data()[base + l * stride]; }

    private static void row(Strided a, int k, float[] into) {
        for (int s = 0; s < into.length; s++) into[s] = a.data()[a.offset() + k * a.s0() + s * a.s1()];
    }

    private static float sigmoid(float x) { return (float) (1 / (1 + Math.exp(-x))); }

    private static float silu(float x) { return x * sigmoid(x); }
}
