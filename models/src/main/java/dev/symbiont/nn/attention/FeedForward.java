package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Intermediates;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.block.ChannelMixer;

import java.util.List;

/**
 * The position-wise feed-forward layer of a block (Vaswani et al. 2017, eq. 2), in one of two kinds:
 * <pre>
 *   GELU:   y = Dropout(proj(GELU(fc(x))))                       keys fc, proj          (GPT-2)
 *   SwiGLU: y = Dropout(w2(SiLU(w1(x)) ⊙ w3(x)))                  keys w1, w2, w3        (Shazeer 2020, eq. 6; Llama)
 * </pre>
 * GELU is the exact erf form (torch.nn.GELU's default), run with fc as one fused
 * {@code linear_gelu}, or GPT-2's tanh approximation
 * 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). Bias-free SwiGLU runs w1, w3 and the gate as one
 * {@code linear_swiglu}; with biases (Llama's {@code mlp_bias}) as two linears and the gate. As a
 * block's {@link ChannelMixer} its key is {@code mlp}.
 */
public final class FeedForward extends ChannelMixer {
    private final MlpKind kind;
    private final Linear fc, proj, w1, w2, w3;
    private final Dropout dropout;

    public FeedForward(BlockConfig c, Generator g) {
        this.kind = c.mlp();
        int d = c.dModel(), ff = c.ffSize();
        boolean bias = c.biases().mlp();
        if (kind.isGelu()) {
            this.fc = module("fc", new Linear(d, ff, bias, g));
            this.proj = module("proj", new Linear(ff, d, bias, g));
            this.w1 = w2 = w3 = null;
        } else {
            this.fc = proj = null;
            this.w1 = module("w1", new Linear(d, ff, bias, g));
            this.w2 = module("w2", new Linear(ff, d, bias, g));
            this.w3 = module("w3", new Linear(d, ff, bias, g));
        }
        this.dropout = module("dropout", new Dropout(c.dropout(), new Generator(g.nextLong())));
    }

    /** x: (..., dModel) → (..., dModel). */
    @Override
    public Tensor forward(Tensor x) {
        Intermediates temps = Intermediates.begin();
        Tensor hidden = switch (kind) {
            case GELU -> fc.forwardGelu(x);                                  // fc and GELU as one fused op
            case GELU_TANH -> temps.add(fc.forward(x)).geluTanh();
            case SWIGLU -> w1.bias() == null
                    ? w1.forwardSwiglu(w3, x)                                // w1, w3 and the gate as one op
                    : temps.add(temps.add(w1.forward(x)).silu()).mul(temps.add(w3.forward(x)));
        };
        Tensor y = (kind.isGelu() ? proj : w2).forward(temps.add(hidden));
        return temps.releaseAfter(dropout.forward(y));                      // the hidden activations back to the pool
    }

    @Override
    public String blockKey() { return "mlp"; }

    /** The projection back to dModel ({@code proj} or {@code w2}). */
    @Override
    public List<Linear> residualProjections() { return List.of(kind.isGelu() ? proj : w2); }

    public MlpKind kind() { return kind; }

    @Override
    protected String extraRepr() { return kind.toString(); }
}
