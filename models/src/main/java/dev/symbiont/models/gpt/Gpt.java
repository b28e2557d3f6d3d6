package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;
import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Intermediates;
import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Embedding;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.Seed;
import dev.symbiont.nn.attention.TransformerBlock;
import dev.symbiont.nn.block.DecoderStack;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.block.ResidualBlock;
import dev.symbiont.nn.moe.MoeLayers;
import dev.symbiont.nn.moe.MoeTransformerBlock;
import dev.symbiont.nn.moe.RouterLosses;
import dev.symbiont.nn.moe.TopKRouter;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A decoder-only language model (GPT-2, Radford et al. 2019; Llama-style with RMSNorm, SwiGLU,
 * RoPE and grouped-query attention as options):
 * <pre>
 *   h₀ = Dropout(tok_emb[ids] + pos_emb[positions])        (pos_emb only with learned positions)
 *   h_l = Block_l(h_{l−1}),  l = 1..L                       causal, pre-norm ({@link TransformerBlock} in a {@link DecoderStack})
 *   logits = norm_f(h_L) · lm_headᵀ
 * </pre>
 * State-dict keys: {@code tok_emb.weight}, {@code pos_emb.weight}, {@code blocks.<i>.norm1.*},
 * {@code blocks.<i>.attn.qkv.*}, {@code blocks.<i>.attn.proj.*}, {@code blocks.<i>.norm2.*},
 * {@code blocks.<i>.mlp.fc.*|proj.*} (or {@code mlp.w1|w2|w3.weight}), {@code norm_f.*},
 * {@code lm_head.weight} (the same tensor as tok_emb.weight when tied). Loading a checkpoint of
 * another config with {@code loadStateDict(state, true)} fails listing every differing key.
 *
 * <p>With {@link MoeLayers} every n-th block's MLP is a mixture of experts ({@link MoeTransformerBlock},
 * keys {@code blocks.<i>.block_sparse_moe.*}); {@link #auxiliaryLoss()} is then what a trainer adds
 * to {@link #loss} after each forward.
 *
 * <p>Initialisation follows GPT-2 (§2.3, as in nanoGPT): weights ~ N(0, 0.02²), biases 0, and the
 * projections that write into the residual stream ~ N(0, (0.02/√(2L))²); norms start at 1.
 */
public final class Gpt extends CausalLM {
    /** GPT-2's standard deviation for initial weights. */
    public static final double GPT2_INIT_STD = 0.02;

    private final GptConfig config;
    private final MoeLayers moe;
    private final Embedding tokEmb, posEmb;
    private final Dropout drop;
    private final DecoderStack decoder;
    private final LmHead lmHead;

    /** A model with GPT-2's initialisation, drawn from the shared {@link Seed} generator. */
    public Gpt(GptConfig config) { this(config, Seed.generator()); }

    /** A model with GPT-2's initialisation (std 0.02), drawn from {@code g}. */
    public Gpt(GptConfig config, Generator g) { this(config, g, GPT2_INIT_STD); }

    /**
     * A model whose weights are drawn from N(0, initStd²) (residual projections
     * N(0, (initStd/√(2L))²)). GPT-2's 0.02 suits widths in the hundreds; tiny models train much
     * faster from about 1/√dModel, where attention scores are not vanishingly small at the start.
     */
    public Gpt(GptConfig config, Generator g, double initStd) { this(config, null, g, initStd); }

    /**
     * As {@link #Gpt(GptConfig, Generator, double)}, with the MoE layers {@code moe} describes
     * (null: a dense model); the routers' weights are drawn like every other projection's.
     */
    public Gpt(GptConfig config, MoeLayers moe, Generator g, double initStd) {
        if (!(initStd > 0) || Double.isInfinite(initStd)) throw new IllegalArgumentException("Gpt: initStd must be positive, got " + initStd);
        this.config = config;
        this.moe = moe;
        this.tokEmb = module("tok_emb", new Embedding(config.vocab(), config.dModel(), g));
        this.posEmb = config.positions() == PositionKind.LEARNED ? module("pos_emb", new Embedding(config.maxSeq(), config.dModel(), g)) : null;
        this.drop = module("drop", new Dropout(config.dropout(), new Generator(g.nextLong())));
        this.decoder = wrap(moe == null ? TransformerBlock.decoder(config.blockConfig(), config.layers(), g)   // keys blocks.*, norm_f.*
                : MoeTransformerBlock.decoder(config.blockConfig(), moe, config.layers(), g));
        Parameter head = config.tiedEmbeddings() ? tokEmb.weight() : new Parameter(Tensor.zeros(config.vocab(), config.dModel()));
        this.lmHead = module("lm_head", new LmHead(head));
        initialise(g, initStd);
    }

    private void initialise(Generator g, double std) {
        for (Module m : modules()) {
            if (m instanceof Linear l) {
                l.weight().update(Init.normal(g, 0, std, l.weight().shape()));
                if (l.bias() != null) l.bias().update(Tensor.zeros(l.bias().shape()));
            } else if (m instanceof Embedding e) {
                e.weight().update(Init.normal(g, 0, std, e.weight().shape()));
            } else if (m instanceof TopKRouter r) {
                r.weight().update(Init.normal(g, 0, std, r.weight().shape()));
            }
        }
        if (!config.tiedEmbeddings()) lmHead.weight().update(Init.normal(g, 0, std, config.vocab(), config.dModel()));
        double residualStd = std / Math.sqrt(2.0 * config.layers());
        for (ResidualBlock<?, ?> block : decoder.blocks()) {
            for (Linear l : block.residualProjections()) l.weight().update(Init.normal(g, 0, residualStd, l.weight().shape()));
        }
    }

    public GptConfig config() { return config; }

    /** The MoE settings, or null for a dense model. */
    public MoeLayers moe() { return moe; }

    @Override
    public int vocab() { return config.vocab(); }

    @Override
    public int maxSeq() { return config.maxSeq(); }

    /**
     * What a checkpoint's metadata records: {@code architecture=gpt}, the config's keys, and the
     * MoE settings' ({@code moe_*}) for an MoE model.
     */
    @Override
    public Map<String, String> metadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ARCHITECTURE, "gpt");
        m.putAll(config.toMap());
        if (moe != null) m.putAll(moe.toMap());
        return m;
    }

    /**
     * The MoE layers' auxiliary losses from the last forward, weighted by their coefficients
     * (load balancing, formed per layer or across the layers as {@link MoeLayers#loadBalancing}
     * says, and router z-loss): a scalar with autograd history to the routers, or null for a
     * dense model. Under activation checkpointing it has the same value and sends the
     * same gradients: they reach the routers through each block's rerun ({@code Checkpoint.sideOutputs}).
     */
    @Override
    public Tensor auxiliaryLoss() {
        if (moe == null) return null;
        return switch (moe.loadBalancing()) {
            case PER_LAYER -> RouterLosses.total(this, moe.loadBalancingCoef(), moe.zLossCoef());
            case ACROSS_LAYERS -> RouterLosses.totalAcrossLayers(this, moe.loadBalancingCoef(), moe.zLossCoef());
        };
    }

    /**
     * Logits for ids that continue the sequence held in {@code state} (positions
     * state.length(), ...); every block extends its part of the state (keys and values for attention).
     *
     * @param ids   (batch, seq) integer token ids
     * @param state null, or a decoding state from {@link #newState}
     * @return (batch, seq, vocab) float32
     */
    @Override
    public Tensor forward(Tensor ids, DecodingState state) {
        checkIds(ids);
        int seq = ids.size(1), offset = state == null ? 0 : state.length();
        if (offset + seq > config.maxSeq()) {
            throw new IllegalArgumentException("Gpt: positions " + offset + ".." + (offset + seq - 1) + " exceed maxSeq " + config.maxSeq()
                    + (state == null ? "" : " (" + offset + " decoded + " + seq + " new)"));
        }
        Intermediates temps = Intermediates.begin();                                // the pool has them back once unread
        Tensor x = temps.add(tokEmb.forward(ids));                                  // (batch, seq, dModel)
        if (posEmb != null) {
            // Positions offset..offset+seq−1 are consecutive rows of the table: a view, no id tensor to upload.
            Tensor positions = posEmb.weight().value().narrow(0, offset, seq);       // (seq, dModel)
            x = temps.add(x.add(positions.dtype().isHalf() ? positions.to(DType.FLOAT32) : positions));
        }
        x = temps.add(decoder.forward(temps.add(drop.forward(x)), null, state));
        Tensor logits = lmHead.forward(x);
        return state == null ? temps.releaseAfter(logits) : logits;
    }

    /** An empty decoding state (a KV cache per block) for up to {@code maxLength} (≤ maxSeq) positions. */
    @Override
    public DecodingState newState(int maxLength) {
        if (maxLength > config.maxSeq()) {
            throw new IllegalArgumentException("Gpt.newState: maxLength " + maxLength + " exceeds maxSeq " + config.maxSeq());
        }
        return decoder.newState(maxLength);
    }

    /** Activation checkpointing of every block during training; returns this. */
    public Gpt activationCheckpointing(boolean on) {
        decoder.checkpointing(on);
        return this;
    }

    public DecoderStack decoder() { return decoder; }

    @Override
    protected String extraRepr() {
        return "vocab=" + config.vocab() + ", dModel=" + config.dModel() + ", layers=" + config.layers() + ", heads=" + config.heads()
                + "/" + config.kvHeads() + ", positions=" + config.positions()
                + (config.positions() == PositionKind.ROPE ? ", ropeTheta=" + config.ropeTheta() : "")
                + (moe == null ? "" : ", moe=" + moe.experts() + "x" + moe.topK() + " every " + moe.every());
    }
}
