package dev.symbiont.models.hf;

import dev.symbiont.core.Generator;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.PositionKind;
import dev.symbiont.nn.attention.Biases;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.moe.MoeLayers;

import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * The Llama-shaped decoders: Llama 2 and 3 ({@code LlamaForCausalLM}), Mistral, Qwen2 and
 * Mixtral. Each is a pre-norm decoder with RMSNorm, RoPE (Llama 3.1's scaling as an option),
 * grouped-query attention with separate q/k/v projections and SwiGLU (Mixtral: a sparse mixture
 * of SwiGLU experts, {@link MixtralExperts}), run as a {@link Gpt} whose keys map as
 * <pre>
 *   model.embed_tokens                         tok_emb
 *   model.layers.i.input_layernorm             blocks.i.norm1
 *   model.layers.i.self_attn.{q,k,v}_proj      blocks.i.attn.{q,k,v}_proj
 *   model.layers.i.self_attn.o_proj            blocks.i.attn.out_proj
 *   model.layers.i.post_attention_layernorm    blocks.i.norm2
 *   model.layers.i.mlp.gate_proj / up_proj / down_proj    blocks.i.mlp.w1 / w3 / w2
 *   model.layers.i.block_sparse_moe            blocks.i.block_sparse_moe   (Mixtral: gate, experts.e.w1/w2/w3 as they are)
 *   model.norm, lm_head                        norm_f, lm_head
 * </pre>
 * They differ in their biases (Llama: {@code attention_bias} on q, k, v and o, {@code mlp_bias};
 * Mistral: none; Qwen2: q, k and v) and in the sliding window of Mistral (and of Qwen2 with
 * {@code use_sliding_window}; of Mixtral when it sets one): a sequence is limited to the window,
 * within which windowed attention is full causal attention, so nothing past it is computed
 * wrongly. Their config classes differ in the defaults of fields a file leaves out ({@link Defaults}).
 */
final class LlamaFamily implements HfArchitecture {
    static final LlamaFamily LLAMA = new LlamaFamily("LlamaForCausalLM", "llama",
            c -> new Biases(c.bool("attention_bias", false), c.bool("attention_bias", false), c.bool("mlp_bias", false)), c -> 0,
            new Defaults(0, 10_000, 1e-6), null);
    static final LlamaFamily MISTRAL = new LlamaFamily("MistralForCausalLM", "mistral", c -> Biases.NONE,
            c -> c.positive("sliding_window", 0), new Defaults(8, 10_000, 1e-6), null);
    static final LlamaFamily QWEN2 = new LlamaFamily("Qwen2ForCausalLM", "qwen2", c -> new Biases(true, false, false),
            c -> c.bool("use_sliding_window", false) ? c.positive("sliding_window", 4096) : 0, new Defaults(0, 10_000, 1e-6), null);
    static final LlamaFamily MIXTRAL = new LlamaFamily("MixtralForCausalLM", "mixtral", c -> Biases.NONE,
            c -> c.positive("sliding_window", 0), new Defaults(8, 1e6, 1e-5), MixtralExperts::read);

    static final KeyMap KEYS = new KeyMap(List.of(
            new KeyMap.Rule("model.embed_tokens", "tok_emb", false),
            new KeyMap.Rule("model.layers.#.input_layernorm", "blocks.#.norm1", false),
            new KeyMap.Rule("model.layers.#.self_attn.q_proj", "blocks.#.attn.q_proj", false),
            new KeyMap.Rule("model.layers.#.self_attn.k_proj", "blocks.#.attn.k_proj", false),
            new KeyMap.Rule("model.layers.#.self_attn.v_proj", "blocks.#.attn.v_proj", false),
            new KeyMap.Rule("model.layers.#.self_attn.o_proj", "blocks.#.attn.out_proj", false),
            new KeyMap.Rule("model.layers.#.post_attention_layernorm", "blocks.#.norm2", false),
            new KeyMap.Rule("model.layers.#.mlp.gate_proj", "blocks.#.mlp.w1", false),
            new KeyMap.Rule("model.layers.#.mlp.up_proj", "blocks.#.mlp.w3", false),
            new KeyMap.Rule("model.layers.#.mlp.down_proj", "blocks.#.mlp.w2", false),
            new KeyMap.Rule("model.layers.#.block_sparse_moe", "blocks.#.block_sparse_moe", false),
            new KeyMap.Rule("model.norm", "norm_f", false),
            new KeyMap.Rule("lm_head", "lm_head", false)));

    /**
     * The values a config class gives fields its file leaves out.
     *
     * @param kvHeads    {@code num_key_value_heads}; 0 for num_attention_heads
     * @param ropeTheta  {@code rope_theta}
     * @param rmsNormEps {@code rms_norm_eps}
     */
    record Defaults(int kvHeads, double ropeTheta, double rmsNormEps) {}

    private final String name, modelType;
    private final Function<HfConfig, Biases> biases;
    private final ToIntFunction<HfConfig> slidingWindow;
    private final Defaults defaults;
    private final Function<HfConfig, MoeLayers> experts;

    /**
     * @param biases        which projections the config gives biases
     * @param slidingWindow the config's attention window, 0 for none
     * @param experts       the mixture of experts every block's MLP is, or null for dense MLPs
     */
    private LlamaFamily(String name, String modelType, Function<HfConfig, Biases> biases, ToIntFunction<HfConfig> slidingWindow,
                        Defaults defaults, Function<HfConfig, MoeLayers> experts) {
        this.name = name;
        this.modelType = modelType;
        this.biases = biases;
        this.slidingWindow = slidingWindow;
        this.defaults = defaults;
        this.experts = experts;
    }

    @Override public String name() { return name; }

    @Override public String modelType() { return modelType; }

    @Override
    public HfModelPlan plan(HfConfig c, Set<String> fileKeys) {
        HfConfigChecks.requireSiluUnquantized(c, name);
        int hidden = c.positive("hidden_size"), heads = c.positive("num_attention_heads");
        int headDim = c.positive("head_dim", 0);
        if (headDim == 0 && hidden % heads != 0) {
            throw new IllegalArgumentException(c.file() + ": num_attention_heads = " + heads + " does not divide hidden_size = " + hidden
                    + " and no head_dim is given");
        }
        int maxPositions = c.positive("max_position_embeddings"), window = slidingWindow.applyAsInt(c);
        GptConfig config = HfConfigChecks.valid(c, () -> GptConfig.builder()
                .vocab(c.positive("vocab_size")).dModel(hidden).layers(c.positive("num_hidden_layers")).heads(heads)
                .kvHeads(c.positive("num_key_value_heads", defaults.kvHeads() > 0 ? defaults.kvHeads() : heads))
                .headDim(headDim > 0 ? headDim : hidden / heads).ffSize(c.positive("intermediate_size"))
                .maxSeq(window > 0 ? Math.min(maxPositions, window) : maxPositions)
                .tiedEmbeddings(c.bool("tie_word_embeddings", false))
                .norm(NormKind.RMS_NORM).normEps(c.real("rms_norm_eps", defaults.rmsNormEps())).mlp(MlpKind.SWIGLU).biases(biases.apply(c)).fusedQkv(false)
                .positions(PositionKind.ROPE).ropeTheta(c.real("rope_theta", defaults.ropeTheta())).ropeScaling(RopeScalingField.read(c, name))
                .build());
        MoeLayers moe = experts == null ? null : HfConfigChecks.valid(c, () -> experts.apply(c));
        return new HfModelPlan(() -> new Gpt(config, moe, new Generator(0), Gpt.GPT2_INIT_STD), KEYS,
                config.tiedEmbeddings() ? Set.of("lm_head.weight") : Set.of(), key -> key.endsWith(".rotary_emb.inv_freq"));
    }
}
