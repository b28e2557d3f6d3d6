package dev.symbiont.models.hf;

import dev.symbiont.core.Generator;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.PositionKind;
import dev.symbiont.nn.attention.Biases;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * GPT-2 ({@code GPT2LMHeadModel}, Radford et al. 2019): learned positions, pre-norm LayerNorm
 * blocks with one fused qkv projection and a gelu_new (tanh) MLP, all with biases, and a head tied
 * to the token embedding. It runs as a {@link Gpt}; its {@code Conv1D} weights are stored
 * (in, out), transposed from Symbiont's Linear:
 * <pre>
 *   transformer.wte, transformer.wpe              tok_emb, pos_emb
 *   transformer.h.i.ln_1, ln_2                    blocks.i.norm1, norm2
 *   transformer.h.i.attn.c_attn, attn.c_proj      blocks.i.attn.qkv, attn.proj      (Conv1D)
 *   transformer.h.i.mlp.c_fc, mlp.c_proj          blocks.i.mlp.fc, mlp.proj         (Conv1D)
 *   transformer.ln_f, lm_head                     norm_f, lm_head (absent when tied)
 * </pre>
 * Files saved from {@code GPT2Model} (the hub's {@code gpt2}) leave out the {@code transformer.}
 * prefix; both are read, and saving keeps the file's. The modules are named with it whatever the file
 * (transformers' {@code GPT2LMHeadModel} has it), as PEFT's adapter keys are. Their causal-mask buffers
 * ({@code h.i.attn.bias}, {@code h.i.attn.masked_bias}) are not weights: read past, not written back.
 */
final class Gpt2 implements HfArchitecture {
    private static final String PREFIX = "transformer.";
    private static final KeyMap KEYS = new KeyMap(List.of(
            new KeyMap.Rule("wte", "tok_emb", false),
            new KeyMap.Rule("wpe", "pos_emb", false),
            new KeyMap.Rule("h.#.ln_1", "blocks.#.norm1", false),
            new KeyMap.Rule("h.#.attn.c_attn", "blocks.#.attn.qkv", true),
            new KeyMap.Rule("h.#.attn.c_proj", "blocks.#.attn.proj", true),
            new KeyMap.Rule("h.#.ln_2", "blocks.#.norm2", false),
            new KeyMap.Rule("h.#.mlp.c_fc", "blocks.#.mlp.fc", true),
            new KeyMap.Rule("h.#.mlp.c_proj", "blocks.#.mlp.proj", true),
            new KeyMap.Rule("ln_f", "norm_f", false),
            new KeyMap.Rule("lm_head", "lm_head", false)));
    private static final Pattern MASK_BUFFER = Pattern.compile("(transformer\\.)?h\\.\\d+\\.attn\\.(bias|masked_bias)");

    @Override public String name() { return "GPT2LMHeadModel"; }

    @Override public String modelType() { return "gpt2"; }

    @Override
    public HfModelPlan plan(HfConfig c, Set<String> fileKeys) {
        String act = c.text("activation_function", "gelu_new");
        if (!act.equals("gelu_new") && !act.equals("gelu_pytorch_tanh")) throw c.unsupported(name(), "activation_function", act, "gelu_new");
        if (!c.bool("scale_attn_weights", true)) throw c.unsupported(name(), "scale_attn_weights", false, "true");
        if (c.bool("scale_attn_by_inverse_layer_idx", false)) throw c.unsupported(name(), "scale_attn_by_inverse_layer_idx", true, "false");
        if (c.bool("add_cross_attention", false)) throw c.unsupported(name(), "add_cross_attention", true, "false");
        HfConfigChecks.refuseQuantized(c, name());
        int width = c.positive("n_embd");
        GptConfig config = HfConfigChecks.valid(c, () -> GptConfig.builder()
                .vocab(c.positive("vocab_size")).dModel(width).layers(c.positive("n_layer")).heads(c.positive("n_head"))
                .ffSize(c.positive("n_inner", 4 * width)).maxSeq(c.positive("n_positions", c.positive("n_ctx", 1024)))
                .tiedEmbeddings(c.bool("tie_word_embeddings", true))
                .norm(NormKind.LAYER_NORM).normEps(c.real("layer_norm_epsilon", 1e-5)).mlp(MlpKind.GELU_TANH).biases(Biases.ALL)
                .fusedQkv(true).positions(PositionKind.LEARNED).build());
        boolean prefixed = !fileKeys.contains("wte.weight");
        KeyMap modules = KEYS.withHfPrefix(PREFIX, "lm_head");           // GPT2LMHeadModel's names, whatever the file's
        return new HfModelPlan(() -> new Gpt(config, new Generator(0), Gpt.GPT2_INIT_STD), prefixed ? modules : KEYS,
                config.tiedEmbeddings() ? Set.of("lm_head.weight") : Set.of(), key -> MASK_BUFFER.matcher(key).matches(), modules);
    }
}
