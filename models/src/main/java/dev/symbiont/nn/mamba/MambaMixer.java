package dev.symbiont.nn.mamba;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.block.MixerContext;
import dev.symbiont.nn.block.SequenceMixer;

import java.util.List;
import java.util.Objects;

/**
 * The Mamba (S6) mixer: Gu &amp; Dao 2023, §3 and Algorithm 2, as mamba-ssm's {@code Mamba}
 * and Hugging Face's {@code MambaMixer} compute it.
 * <pre>
 *   x, z   = in_proj(u)                                  (batch, L, d_inner) each, no bias
 *   x      = silu(conv1d(x))                             causal depthwise, kernel d_conv
 *   Δ, B, C = x_proj(x)                                  (dt_rank, N, N): selection, Algorithm 2 lines 3–5
 *   Δ      = dt_proj(Δ)  (its bias enters the scan, softplus inside: τ_Δ = softplus)
 *   A      = −exp(A_log)                                 (d_inner, N), real and negative (S4D-real)
 *   y      = selective_scan(x, Δ, A, B, C, D, z)        h_l = exp(Δ·A)h_{l−1} + ΔB·x, y = C·h + D·x, y·silu(z)
 *   out    = out_proj(y)
 * </pre>
 * Keys are Hugging Face's {@code MambaForCausalLM} mixer keys: {@code in_proj.weight},
 * {@code conv1d.weight} (d_inner, 1, d_conv), {@code conv1d.bias}, {@code x_proj.weight},
 * {@code dt_proj.weight}, {@code dt_proj.bias}, {@code A_log}, {@code D}, {@code out_proj.weight};
 * the block key is {@code mixer}.
 *
 * <p>Initialisation as the paper's code: A_log = log(1..N) in every channel, D = 1,
 * dt_proj.weight ~ U(±dt_rank^−½), and dt_proj.bias = softplus⁻¹(dt) for dt log-uniform in
 * [10⁻³, 10⁻¹], so Δ starts in that range.
 *
 * <p>Decoding: the state ({@link State}) is the last d_conv − 1 conv inputs and the scan's h,
 * (batch, d_inner, N) — a fixed size whatever the context. Several tokens (a prompt, or a
 * prompt's next piece) run through the selective scan from the state's h, the convolution
 * reading the saved inputs as its left context; a single token after the first steps the
 * recurrence ({@link Step}): by default as the fused selective scan of one position from the
 * state (one kernel updates h and gives the gated y, mamba-ssm's {@code selective_state_update}),
 * or as the recurrence's tensor ops, its reference twin.
 */
public final class MambaMixer extends SequenceMixer {
    private final MambaConfig config;
    private final Linear inProj, xProj, dtProj, outProj;
    private final CausalConv1d conv1d;
    private final Parameter aLog, d;
    private Step step = Step.FUSED;

    /** How one token after the first is decoded; both give the same y and h to float rounding. */
    public enum Step {
        /** The fused selective scan over one position from the state's h: one kernel per layer. */
        FUSED,
        /** h = exp(Δ·A)·h + Δ·B·x, y = C·h + D·x, y·silu(z) as tensor ops: the reference twin. */
        TENSOR_OPS
    }

    public MambaMixer(MambaConfig config, Generator g) {
        this.config = config;
        int di = config.dInner(), n = config.dState(), r = config.dtRank();
        this.inProj = module("in_proj", new Linear(config.dModel(), 2 * di, false, g));
        this.conv1d = module("conv1d", new CausalConv1d(di, config.dConv(), g));
        this.xProj = module("x_proj", new Linear(di, r + 2 * n, false, g));
        this.dtProj = module("dt_proj", new Linear(r, di, true, g));
        this.aLog = parameter("A_log", Tensor.arange(1, n + 1, 1, DType.FLOAT32).log()
                .reshape(1, n).expand(di, n).contiguous());
        this.d = parameter("D", Tensor.ones(di));
        this.outProj = module("out_proj", new Linear(di, config.dModel(), false, g));
        double std = 1 / Math.sqrt(r);
        dtProj.weight().replace(Init.uniform(g, -std, std, di, r));
        dtProj.bias().replace(DtInit.inverseSoftplusOfLogUniformDt(g, di));
    }

    public MambaConfig config() { return config; }

    /** How this mixer decodes one token after the first. */
    public Step step() { return step; }

    /** Sets how this mixer decodes one token after the first; returns this mixer. */
    public MambaMixer step(Step how) {
        this.step = Objects.requireNonNull(how, "MambaMixer.step");
        return this;
    }

    /**
     * The decoding state of one Mamba mixer.
     * conv: the last d_conv − 1 inputs of the convolution (batch, d_inner, d_conv − 1);
     * ssm: the scan's h (batch, d_inner, N); both null while empty.
     */
    public static final class State extends SsmState {}

    @Override
    public State newState(int maxLength) { return new State(); }

    @Override
    public String blockKey() { return "mixer"; }

    @Override
    public List<Linear> residualProjections() { return List.of(outProj); }

    /**
     * @param u       (batch, L, dModel)
     * @param context causal, no mask; its state, if any, is this mixer's {@link State}
     * @return (batch, L, dModel)
     */
    @Override
    public Tensor forward(Tensor u, MixerContext context) {
        MixerInputs.check("MambaMixer", u, context, config.dModel());
        State state = context.stateAs(State.class, "MambaMixer");
        if (state != null) {
            state.checkShapes("MambaMixer", new int[] {u.size(0), config.dInner(), config.dConv() - 1},
                    new int[] {u.size(0), config.dInner(), config.dState()});
        }
        if (u.size(1) == 0) {
            try (var onU = Backends.use(u.backend())) {
                return Tensor.zeros(u.size(0), 0, config.dModel());                // nothing to mix; the state is unchanged
            }
        }
        int di = config.dInner();
        Tensor x = inProj.forwardRows(u, 0, di).transpose(1, 2);                  // (batch, d_inner, L)
        Tensor z = inProj.forwardRows(u, di, di).transpose(1, 2);
        Tensor padded = conv1d.pad(x, state == null ? null : state.conv);
        Tensor xc = conv1d.forwardPadded(padded).silu();                          // (batch, d_inner, L)
        boolean oneStep = state != null && state.ssm != null && u.size(1) == 1 && step == Step.TENSOR_OPS;
        Tensor y = oneStep ? steps(xc, z, state) : scan(xc, z, state);
        if (state != null) {
            state.conv = padded.narrow(2, padded.size(2) - (config.dConv() - 1), config.dConv() - 1).contiguous().detach();
            state.length += u.size(1);
        }
        return outProj.forward(y.transpose(1, 2));
    }

    /** The selection, Algorithm 2 lines 3–5: Δ before its bias (batch, L, d_inner), B and C (batch, L, N). */
    private Tensor[] select(Tensor xc) {
        int r = config.dtRank(), n = config.dState();
        Tensor rows = xc.transpose(1, 2);                                         // (batch, L, d_inner)
        Tensor dt = xProj.forwardRows(rows, 0, r);
        Tensor delta = Linears.linear(dt, dtProj.weight().value(), null);         // dt_proj without its bias
        return new Tensor[] {delta, xProj.forwardRows(rows, r, n), xProj.forwardRows(rows, r + n, n)};
    }

    private Tensor a() { return aLog.value().exp().neg(); }

    /**
     * The whole sequence through the selective scan from the state's h (zero when there is none
     * or it is empty); keeps h_{L−1} in the state when there is one.
     */
    private Tensor scan(Tensor xc, Tensor z, State state) {
        Tensor[] s = select(xc);
        Tensor h0 = state == null ? null : state.ssm;
        Scans.ScanOutput out = Scans.selectiveScan(xc, s[0].transpose(1, 2), a(), s[1].transpose(1, 2), s[2].transpose(1, 2),
                d.value(), z, dtProj.bias().value(), true, h0, state != null);
        if (state != null) state.ssm = out.lastState().detach();
        return out.output();
    }

    /** The recurrence one position at a time from the state's h (Algorithm 2 as a recurrence: decoding). */
    private Tensor steps(Tensor xc, Tensor z, State state) {
        Tensor[] s = select(xc);
        Tensor dt = s[0].add(dtProj.bias().value()).softplus();                  // (batch, L, d_inner)
        Tensor a = a(), h = state.ssm;
        Tensor[] ys = new Tensor[xc.size(2)];
        for (int l = 0; l < ys.length; l++) {
            Tensor dtl = dt.select(1, l).unsqueeze(2);                            // (batch, d_inner, 1)
            Tensor xl = xc.select(2, l);                                          // (batch, d_inner)
            Tensor bl = s[1].select(1, l).unsqueeze(1), cl = s[2].select(1, l).unsqueeze(1); // (batch, 1, N)
            h = dtl.mul(a).exp().mul(h).add(dtl.mul(bl).mul(xl.unsqueeze(2)));   // h = exp(Δ·A)·h + Δ·B·x
            Tensor y = h.mul(cl).sum(2, false).add(xl.mul(d.value()));            // y = C·h + D·x
            ys[l] = y.mul(z.select(2, l).silu());
        }
        state.ssm = h.detach();
        return Tensor.stack(List.of(ys), 2);                                     // (batch, d_inner, L)
    }

    public Linear inProj() { return inProj; }

    public Linear outProj() { return outProj; }

    @Override
    protected String extraRepr() { return config.toString(); }
}
