package dev.symbiont.models.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.LmHead;
import dev.symbiont.nn.Embedding;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.RMSNorm;
import dev.symbiont.nn.block.DecoderStack;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.block.ResidualBlock;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.mamba.MambaBlock;
import dev.symbiont.optim.ParamGroup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Mamba language model (Gu &amp; Dao 2023, §3.4 and §4.2; mamba-ssm's {@code MambaLMHeadModel},
 * Hugging Face's {@code MambaForCausalLM}):
 * <pre>
 *   h₀ = embeddings[ids]                                    no positions: the recurrence orders the tokens
 *   h_l = h_{l−1} + Mixer_l(RMSNorm_l(h_{l−1})),  l = 1..L   {@link MambaBlock}s in a {@link DecoderStack}
 *   logits = norm_f(h_L) · embeddingsᵀ                       tied head (or lm_head's own matrix, {@link MambaLMConfig#tiedEmbeddings})
 * </pre>
 * State-dict keys are Hugging Face's: {@code backbone.embeddings.weight},
 * {@code backbone.layers.<i>.norm.weight}, {@code backbone.layers.<i>.mixer.{in_proj.weight,
 * conv1d.weight, conv1d.bias, x_proj.weight, dt_proj.weight, dt_proj.bias, A_log, D,
 * out_proj.weight}}, {@code backbone.norm_f.weight} and {@code lm_head.weight} (the embedding's
 * tensor when tied), so a converted checkpoint loads without renaming. With a Mamba-2 mixer ({@link
 * dev.symbiont.nn.mamba.Mamba2Mixer}) the mixer keys are {@code Mamba2ForCausalLM}'s: {@code in_proj.weight,
 * conv1d.weight, conv1d.bias, dt_bias, A_log, D, norm.weight, out_proj.weight}.
 *
 * <p>Decoding keeps per block the conv window (batch, d_inner, d_conv − 1) and the scan's state
 * (batch, d_inner, N): the cost of a token and the state's size do not depend on how many
 * tokens came before, and there is no context limit ({@link #maxSeq} is {@link Integer#MAX_VALUE}).
 *
 * <p>Initialisation as mamba-ssm's {@code _init_weights}: embeddings ~ N(0, 0.02²), projections
 * as torch.nn.Linear, each out_proj scaled by 1/√L (one residual write per block), the mixer's
 * own A_log, D and Δ init ({@link dev.symbiont.nn.mamba.MambaMixer}), norms at 1.
 */
public final class MambaLM extends CausalLM {
    /** mamba-ssm's standard deviation of the initial embeddings. */
    public static final double EMBEDDING_INIT_STD = 0.02;

    private final MambaLMConfig config;
    private final Backbone backbone;
    private final LmHead lmHead;

    /** A model with mamba-ssm's initialisation, drawn from {@code g}. */
    public MambaLM(MambaLMConfig config, Generator g) { this(config, g, EMBEDDING_INIT_STD); }

    /** As {@link #MambaLM(MambaLMConfig, Generator)} with the embeddings drawn from N(0, embeddingStd²). */
    public MambaLM(MambaLMConfig config, Generator g, double embeddingStd) {
        if (!(embeddingStd > 0) || Double.isInfinite(embeddingStd)) {
            throw new IllegalArgumentException("MambaLM: embeddingStd must be positive, got " + embeddingStd);
        }
        this.config = config;
        this.backbone = module("backbone", new Backbone(config, g));
        Parameter head = config.tiedEmbeddings() ? backbone.embeddings.weight() : new Parameter(Tensor.zeros(config.vocab(), config.dModel()));
        this.lmHead = module("lm_head", new LmHead(head));
        backbone.embeddings.weight().update(Init.normal(g, 0, embeddingStd, config.vocab(), config.dModel()));
        if (!config.tiedEmbeddings()) head.update(Init.normal(g, 0, embeddingStd, config.vocab(), config.dModel()));
        double scale = 1 / Math.sqrt(config.layers());
        for (ResidualBlock<?, ?> block : backbone.stack.blocks()) {
            for (Linear l : block.residualProjections()) l.weight().update(l.weight().value().mul(scale));
        }
    }

    /** Hugging Face's {@code MambaModel}: keys {@code embeddings.weight}, {@code layers.<i>.…}, {@code norm_f.weight}. */
    private static final class Backbone extends Module {
        final Embedding embeddings;
        final DecoderStack stack;

        Backbone(MambaLMConfig c, Generator g) {
            this.embeddings = module("embeddings", new Embedding(c.vocab(), c.dModel(), g));
            List<MambaBlock> blocks = new ArrayList<>();
            for (int i = 0; i < c.layers(); i++) blocks.add(new MambaBlock(c.mixer(), c.normEps(), g));
            // The stack's keys sit directly under backbone, beside the embeddings, as in Hugging Face's checkpoints.
            this.stack = wrap(new DecoderStack(c.dModel(), "layers", blocks, new RMSNorm(c.dModel(), c.normEps())));
        }
    }

    public MambaLMConfig config() { return config; }

    @Override
    public int vocab() { return config.vocab(); }

    /** A recurrence has no position table: any length can be read or generated. */
    @Override
    public int maxSeq() { return Integer.MAX_VALUE; }

    /** {@code architecture=mamba} or {@code mamba2} (the mixer's kind) and the config's Hugging Face keys ({@link MambaLMConfig#toMap}). */
    @Override
    public Map<String, String> metadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ARCHITECTURE, config.mixer().architecture());
        m.putAll(config.toMap());
        return m;
    }

    /**
     * Logits for ids that continue the positions {@code state} holds: several ids (a prompt or its
     * next piece) go through the parallel scan from the saved state, one id after the first steps
     * the recurrence; every block keeps its fixed-size state.
     *
     * @param ids   (batch, seq) integer token ids
     * @param state null, or a decoding state from {@link #newState}
     * @return (batch, seq, vocab) float32
     */
    @Override
    public Tensor forward(Tensor ids, DecodingState state) {
        checkIds(ids);
        Tensor x = backbone.embeddings.forward(ids);                              // (batch, seq, dModel)
        return lmHead.forward(backbone.stack.forward(x, null, state));           // (batch, seq, vocab)
    }

    /** An empty decoding state: per block a {@link dev.symbiont.nn.mamba.MambaMixer.State}, whose size does not depend on {@code maxLength}. */
    @Override
    public DecodingState newState(int maxLength) { return backbone.stack.newState(maxLength); }

    /**
     * {@link ParamGroup#splitDecay}, with every {@code A_log} among the parameters that do not
     * decay (mamba-ssm's {@code _no_weight_decay}): decay would pull each A toward −1 and with
     * it every channel's memory toward one time scale.
     */
    @Override
    public List<ParamGroup> parameterGroups(double weightDecay) {
        Map<String, Parameter> decay = new LinkedHashMap<>(), noDecay = new LinkedHashMap<>();
        namedParameters().forEach((name, p) -> (p.shape().length >= 2 && !name.endsWith(".A_log") ? decay : noDecay).put(name, p));
        return List.of(new ParamGroup("decay", decay, weightDecay), new ParamGroup("no_decay", noDecay, 0.0));
    }

    /** Activation checkpointing of every block during training; returns this. */
    public MambaLM activationCheckpointing(boolean on) {
        backbone.stack.checkpointing(on);
        return this;
    }

    public DecoderStack decoder() { return backbone.stack; }

    /** The output head, whose weight is the embeddings' when tied. */
    public LmHead lmHead() { return lmHead; }

    @Override
    protected String extraRepr() { return "vocab=" + config.vocab() + ", layers=" + config.layers() + ", " + config.mixer(); }
}
