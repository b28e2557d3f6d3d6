package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Intermediates;
import dev.symbiont.core.fused.attention.Attention;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.block.MixerContext;
import dev.symbiont.nn.block.SequenceMixer;

import java.util.Arrays;
import java.util.List;

/**
 * Multi-head self-attention (Vaswani et al. 2017, §3.2.2) with grouped-query heads (Ainslie et
 * al. 2023) and optional rotary positions (Su et al. 2021):
 * <pre>
 *   q = x W_q, k = x W_k, v = x W_v                  split into heads, k and v into kvHeads
 *   q, k = RoPE(q, pos), RoPE(k, pos)                when enabled
 *   head_h = softmax(q_h k_{h/g}ᵀ / √d_head + mask) v_{h/g},   g = heads / kvHeads
 *   y = Dropout(concat(head_1..head_H) W_o)
 * </pre>
 * Keys: fused {@code qkv} (rows q, then k, then v: (heads + 2·kvHeads)·d_head) and {@code proj}
 * as in GPT-2/timm, or separate {@code q_proj}, {@code k_proj}, {@code v_proj} and
 * {@code out_proj} as in Hugging Face's BART/OPT; which of them have biases is the config's
 * {@link Biases}. Heads are d_head wide, dModel / heads unless the config sets another width
 * (Hugging Face's {@code head_dim}): attention then works in heads·d_head, projected from and
 * back to dModel. Without attention dropout the fused
 * scaled-dot-product op computes the heads (it handles the key/value groups itself); with
 * attention dropout in training mode the scores are materialised so the probabilities can be
 * dropped. As a block's {@link SequenceMixer} its key is {@code attn} and its decoding state a
 * {@link KvCache}.
 */
public final class MultiHeadAttention extends SequenceMixer {
    private final int dModel, heads, kvHeads, headDim, width;
    private final Linear qkv, qProj, kProj, vProj, out;
    private final Dropout attnDropout, residDropout;
    private final RotaryEmbedding rope;
    private final double attnP;

    /** Attention with a rotary embedding of its own when the config has RoPE. */
    public MultiHeadAttention(BlockConfig c, Generator g) { this(c, c.newRope(), g); }

    /**
     * Attention rotating by {@code rope}, which several layers may share ({@link BlockConfig#newRope}).
     *
     * @param rope null exactly when the config has no RoPE
     */
    public MultiHeadAttention(BlockConfig c, RotaryEmbedding rope, Generator g) {
        if ((rope != null) != c.rope() || (rope != null && rope.dim() != c.headDim())) {
            throw new IllegalArgumentException("MultiHeadAttention: the config " + (c.rope() ? "has RoPE over heads of " + c.headDim()
                    : "has no RoPE") + " but was given " + (rope == null ? "no rotary embedding" : rope));
        }
        this.dModel = c.dModel();
        this.heads = c.heads();
        this.kvHeads = c.kvHeads();
        this.headDim = c.headDim();
        this.width = heads * headDim;
        int kvWidth = kvHeads * headDim;
        boolean qkvBias = c.biases().qkv(), outBias = c.biases().out();
        if (c.fusedQkv()) {
            this.qkv = module("qkv", new Linear(dModel, width + 2 * kvWidth, qkvBias, g));
            this.qProj = kProj = vProj = null;
            this.out = module("proj", new Linear(width, dModel, outBias, g));
        } else {
            this.qkv = null;
            this.qProj = module("q_proj", new Linear(dModel, width, qkvBias, g));
            this.kProj = module("k_proj", new Linear(dModel, kvWidth, qkvBias, g));
            this.vProj = module("v_proj", new Linear(dModel, kvWidth, qkvBias, g));
            this.out = module("out_proj", new Linear(width, dModel, outBias, g));
        }
        this.attnP = c.dropout();
        this.attnDropout = module("attn_dropout", new Dropout(c.dropout(), new Generator(g.nextLong())));
        this.residDropout = module("resid_dropout", new Dropout(c.dropout(), new Generator(g.nextLong())));
        this.rope = rope == null ? null : module("rope", rope);
    }

    /** Bidirectional self-attention without a mask: x (batch, seq, dModel) → (batch, seq, dModel). */
    public Tensor forward(Tensor x) { return forward(x, null, false, null); }

    /** Self-attention as a block's sequence mixer: {@link #forward(Tensor, Tensor, boolean, KvCache)} with the context's mask, causality and KV cache. */
    @Override
    public Tensor forward(Tensor x, MixerContext context) {
        return forward(x, context.mask(), context.causal(), context.stateAs(KvCache.class, "MultiHeadAttention"));
    }

    /** An empty KV cache for up to {@code maxLength} positions. */
    @Override
    public KvCache newState(int maxLength) { return new KvCache(maxLength); }

    @Override
    public String blockKey() { return "attn"; }

    /** W_o ({@code proj} or {@code out_proj}). */
    @Override
    public List<Linear> residualProjections() { return List.of(out); }

    /**
     * Self-attention of x over itself and, with a cache, over the cached positions before it.
     *
     * @param x      (batch, seq, dModel)
     * @param mask   null or additive float32 broadcastable to (batch, heads, seq, cached + seq)
     * @param causal each position sees only itself and earlier ones (cached ones included)
     * @param cache  null, or this layer's cache: x's keys and values are appended and x sits at
     *               positions cached, cached + 1, ...
     * @return (batch, seq, dModel)
     */
    public Tensor forward(Tensor x, Tensor mask, boolean causal, KvCache cache) {
        if (x.dim() != 3 || x.size(2) != dModel) {
            throw new IllegalArgumentException("MultiHeadAttention(dModel=" + dModel + "): expected x of shape (batch, seq, " + dModel
                    + "), got " + Arrays.toString(x.shape()));
        }
        int batch = x.size(0), seq = x.size(1), kvWidth = kvHeads * headDim;
        // q, k, v and the heads' output go back to the pool once nothing reads them; not with a
        // cache, which keeps the keys and values it is given
        Intermediates temps = Intermediates.begin();
        Tensor q, k, v;
        if (qkv != null) {
            // one product, three views; backward writes each part's weight gradient into its rows
            Tensor[] parts = qkv.forwardSplit(x, width, kvWidth, kvWidth);
            q = parts[0];
            k = parts[1];
            v = parts[2];
        } else {
            q = qProj.forward(x);
            k = kProj.forward(x);
            v = vProj.forward(x);
        }
        q = splitHeads(temps.add(q), batch, seq, heads);
        k = splitHeads(temps.add(k), batch, seq, kvHeads);
        v = splitHeads(temps.add(v), batch, seq, kvHeads);
        int offset = cache == null ? 0 : cache.length();
        if (rope != null) {
            q = temps.add(rope.apply(q, offset));
            k = temps.add(rope.apply(k, offset));
        }
        if (cache != null) {
            KvCache.Kv all = cache.append(k, v);
            k = all.keys();
            v = all.values();
        }
        double scale = 1 / Math.sqrt(headDim);
        Tensor y = isTraining() && attnP > 0
                ? MaterializedAttention.attend(q, k, v, mask, causal, scale, attnDropout)
                : Attention.scaledDotProductAttention(q, k, v, mask, causal, scale);
        // concat(head_1..head_H): a view when the kernel wrote y in q's (batch, seq, heads, headDim) order
        y = temps.add(y).transpose(1, 2).reshape(batch, seq, width);
        Tensor result = residDropout.forward(out.forward(temps.add(y)));
        return cache == null ? temps.releaseAfter(result) : result;
    }

    /**
     * (batch, seq, n·headDim) → (batch, n, seq, headDim), a view: a head's row is headDim
     * consecutive floats, n·headDim apart. The fused attention reads it in place and writes the
     * gradient in the same order, so the backward of this split is a view too.
     */
    private Tensor splitHeads(Tensor t, int batch, int seq, int n) {
        return t.reshape(batch, seq, n, headDim).transpose(1, 2);
    }

    public int heads() { return heads; }

    public int kvHeads() { return kvHeads; }

    public int headDim() { return headDim; }

    /** The rotary embedding, or null without RoPE. */
    public RotaryEmbedding rope() { return rope; }

    @Override
    protected String extraRepr() {
        return "dModel=" + dModel + ", heads=" + heads + ", kvHeads=" + kvHeads + ", fused=" + (qkv != null) + ", rope=" + (rope != null);
    }
}
