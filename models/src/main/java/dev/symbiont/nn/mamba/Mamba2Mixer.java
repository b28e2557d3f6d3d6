package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.RMSNorm;
import dev.symbiont.nn.block.MixerContext;
import dev.symbiont.nn.block.SequenceMixer;

import java.util.List;
import java.util.Objects;

/**
 * The Mamba-2 mixer (Dao &amp; Gu 2024, §7 and Fig. 6), as mamba-ssm's {@code Mamba2} and
 * Hugging Face's {@code Mamba2Mixer} compute it: every projection of the block happens at once
 * at its input (the "parallel" block), and A is one scalar per head.
 * <pre>
 *   z, xBC, Δ = in_proj(u)                       (d_inner, d_inner + 2·G·N, heads), no bias
 *   xBC       = silu(conv1d(xBC))                causal depthwise over x, B and C together, kernel d_conv
 *   x, B, C   = xBC                              x (heads, P), B and C (G, N)
 *   Δ         = softplus(Δ + dt_bias)            (heads)
 *   A         = −exp(A_log)                      (heads), one scalar per head
 *   y         = SSD(x, Δ, A, B, C) + D·x         {@link SsdScan#scan} or {@link Ssd#chunked} ({@link SsdImpl})
 *   y         = RMSNorm(y · silu(z))             the gated norm, Hugging Face's MambaRMSNormGated (norm_before_gate=False)
 *   out       = out_proj(y)
 * </pre>
 * Keys are Hugging Face's {@code Mamba2ForCausalLM} mixer keys: {@code in_proj.weight},
 * {@code conv1d.weight} (conv_dim, 1, d_conv), {@code conv1d.bias}, {@code dt_bias} (heads),
 * {@code A_log} (heads), {@code D} (heads), {@code norm.weight} (d_inner), {@code out_proj.weight}.
 *
 * <p>Initialisation as mamba-ssm's: A uniform in [1, 16] (A_log = log A), D = 1, softplus(dt_bias)
 * log-uniform in [10⁻³, 10⁻¹], projections and convolution as PyTorch's layers.
 *
 * <p>Decoding keeps the last d_conv − 1 inputs of the convolution (batch, conv_dim, d_conv − 1)
 * and the SSM state (batch, heads, P, N): several tokens run through the SSD from the state, one
 * token after the first steps the recurrence ({@link Ssd#step}).
 */
public final class Mamba2Mixer extends SequenceMixer {
    private static final double A_MIN = 1, A_MAX = 16;

    private final Mamba2Config config;
    private final Linear inProj, outProj;
    private final CausalConv1d conv1d;
    private final Parameter dtBias, aLog, d;
    private final RMSNorm norm;
    private SsdImpl ssdImpl = SsdImpl.fromProperty();

    /** A mixer whose gated RMSNorm has mamba-ssm's ε, 1e-5. */
    public Mamba2Mixer(Mamba2Config config, Generator g) { this(config, 1e-5, g); }

    /** @param normEps the gated RMSNorm's ε (Hugging Face's layer_norm_epsilon) */
    public Mamba2Mixer(Mamba2Config config, double normEps, Generator g) {
        this.config = config;
        int di = config.dInner(), h = config.heads();
        this.inProj = module("in_proj", new Linear(config.dModel(), di + config.convDim() + h, false, g));
        this.conv1d = module("conv1d", new CausalConv1d(config.convDim(), config.dConv(), g));
        this.dtBias = parameter("dt_bias", DtInit.inverseSoftplusOfLogUniformDt(g, h));
        this.aLog = parameter("A_log", Init.uniform(g, A_MIN, A_MAX, h).log());
        this.d = parameter("D", Tensor.ones(h));
        this.norm = module("norm", new RMSNorm(di, normEps));
        this.outProj = module("out_proj", new Linear(di, config.dModel(), false, g));
    }

    public Mamba2Config config() { return config; }

    /** How this mixer computes the SSD over a sequence; the same numbers either way (see {@link SsdImpl}). */
    public SsdImpl ssdImpl() { return ssdImpl; }

    /** Sets how this mixer computes the SSD over a sequence; returns this mixer. */
    public Mamba2Mixer ssdImpl(SsdImpl impl) {
        this.ssdImpl = Objects.requireNonNull(impl, "Mamba2Mixer.ssdImpl");
        return this;
    }

    /**
     * The decoding state of one Mamba-2 mixer.
     * conv: the last d_conv − 1 inputs of the convolution (batch, conv_dim, d_conv − 1);
     * ssm: the SSD's h (batch, heads, P, N); both null while empty.
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
        MixerInputs.check("Mamba2Mixer", u, context, config.dModel());
        State state = context.stateAs(State.class, "Mamba2Mixer");
        if (state != null) {
            state.checkShapes("Mamba2Mixer", new int[] {u.size(0), config.convDim(), config.dConv() - 1},
                    new int[] {u.size(0), config.heads(), config.headDim(), config.dState()});
        }
        int batch = u.size(0), len = u.size(1), di = config.dInner(), h = config.heads(), p = config.headDim();
        if (len == 0) {
            try (var onU = Backends.use(u.backend())) {
                return Tensor.zeros(batch, 0, config.dModel());                             // nothing to mix; the state is unchanged
            }
        }
        int gn = config.nGroups() * config.dState();
        Tensor z = inProj.forwardRows(u, 0, di);                                           // (batch, L, d_inner)
        Tensor xbc = inProj.forwardRows(u, di, config.convDim()).transpose(1, 2);         // (batch, conv_dim, L)
        Tensor dt = inProj.forwardRows(u, di + config.convDim(), h).add(dtBias.value()).softplus();  // (batch, L, heads)
        Tensor padded = conv1d.pad(xbc, state == null ? null : state.conv);
        Tensor conv = conv1d.forwardPadded(padded).silu().transpose(1, 2);                // (batch, L, conv_dim)
        Tensor x = conv.narrow(2, 0, di).reshape(batch, len, h, p);
        Tensor b = conv.narrow(2, di, gn).reshape(batch, len, config.nGroups(), config.dState());
        Tensor c = conv.narrow(2, di + gn, gn).reshape(batch, len, config.nGroups(), config.dState());
        Tensor a = aLog.value().exp().neg();
        Tensor y;
        if (state != null && state.ssm != null && len == 1) {
            Ssd.Output o = Ssd.step(state.ssm, x.select(1, 0), dt.select(1, 0), a, b.select(1, 0), c.select(1, 0), d.value());
            y = o.y().unsqueeze(1);
            state.ssm = o.finalState().detach();
        } else {
            Tensor h0 = state == null ? null : state.ssm;
            Ssd.Output o = ssdImpl.on(u.backend()) == SsdImpl.SCAN ? SsdScan.scan(x, dt, a, b, c, d.value(), h0)
                    : Ssd.chunked(x, dt, a, b, c, d.value(), h0, config.chunkSize());
            y = o.y();
            if (state != null) state.ssm = o.finalState().detach();
        }
        if (state != null) {
            state.conv = padded.narrow(2, padded.size(2) - (config.dConv() - 1), config.dConv() - 1).contiguous().detach();
            state.length += len;
        }
        Tensor gated = norm.forward(y.reshape(batch, len, di).mul(z.silu()));            // RMSNorm(y · silu(z))
        return outProj.forward(gated);
    }

    public Linear inProj() { return inProj; }

    public Linear outProj() { return outProj; }

    @Override
    protected String extraRepr() { return config.toString(); }
}
