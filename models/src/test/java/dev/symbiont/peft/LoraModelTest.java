package dev.symbiont.peft;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static dev.symbiont.peft.TinyBases.logits;
import static dev.symbiont.peft.TinyBases.maxDiff;
import static org.junit.jupiter.api.Assertions.*;

/** LoRA on whole models: targets by Hugging Face's module names, PEFT's keys, frozen bases, merging and unloading. */
class LoraModelTest {
    @TempDir
    Path tmp;

    @Test
    void targets_are_matched_by_hugging_face_module_names_and_keys_come_out_as_peft_s() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        LoraModel lora = Lora.apply(base.model(), ModuleNames.of(base.layout()), LoraConfig.of(4, 8, 0, "q_proj", "v_proj"), new Generator(1));
        assertEquals(List.of("model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.v_proj",
                "model.layers.1.self_attn.q_proj", "model.layers.1.self_attn.v_proj"), List.copyOf(lora.adapters().keySet()));
        var state = lora.adapterStateDict();
        assertEquals(List.of(
                "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight",
                "base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight", "base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight",
                "base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight", "base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight",
                "base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight", "base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight"),
                List.copyOf(state.keySet()));
        assertArrayEquals(new int[] {4, 32}, state.get("base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight").shape(), "A: (r, in)");
        assertArrayEquals(new int[] {16, 4}, state.get("base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight").shape(), "B: (out, r)");
        assertFalse(lora.config().fanInFanOut());
        // the model's own state dict names them under Symbiont's paths, as its other weights are
        assertTrue(base.model().stateDict().containsKey("blocks.1.attn.q_proj.lora_B.weight"));
    }

    @Test
    void module_names_map_both_ways_between_symbiont_paths_and_hugging_face_s() throws Exception {
        ModuleNames names = ModuleNames.of(TinyBases.llama(tmp.resolve("llama")).layout());
        assertEquals("model.layers.1.mlp.gate_proj", names.peftName("blocks.1.mlp.w1"));
        assertEquals("blocks.1.mlp.w1", names.modulePath("model.layers.1.mlp.gate_proj"));
        assertEquals("model.layers.0.self_attn.o_proj", names.peftName("blocks.0.attn.out_proj"));
        assertNull(names.modulePath("model.layers.0.self_attn.rotary_emb"));
        assertEquals("blocks.0.attn.qkv", ModuleNames.SYMBIONT.peftName("blocks.0.attn.qkv"));
    }

    @Test
    void gpt2_s_conv1d_targets_are_named_under_transformer_and_set_fan_in_fan_out() throws Exception {
        for (String prefix : new String[] {"transformer.", ""}) {                 // GPT2LMHeadModel's files and the hub's gpt2 files
            PretrainedModel base = TinyBases.gpt2(tmp.resolve("gpt2" + prefix), prefix);
            LoraModel lora = Lora.apply(base, LoraConfig.of(2, 4, 0, "c_attn"));
            assertEquals(List.of("base_model.model.transformer.h.0.attn.c_attn.lora_A.weight", "base_model.model.transformer.h.0.attn.c_attn.lora_B.weight",
                    "base_model.model.transformer.h.1.attn.c_attn.lora_A.weight", "base_model.model.transformer.h.1.attn.c_attn.lora_B.weight"),
                    List.copyOf(lora.adapterStateDict().keySet()), "prefix '" + prefix + "'");
            assertArrayEquals(new int[] {96, 2}, lora.adapterStateDict().get("base_model.model.transformer.h.0.attn.c_attn.lora_B.weight").shape());
            assertTrue(lora.config().fanInFanOut(), "Conv1D targets");
        }
    }

    @Test
    void all_linear_adapts_every_projection_and_saves_their_names() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        LoraModel lora = Lora.apply(base, LoraConfig.of(2, 2, 0, new TargetModules.AllLinear()));
        assertEquals(14, lora.adapters().size(), "7 projections in each of 2 layers");
        assertEquals(new TargetModules.Names(List.of("down_proj", "gate_proj", "k_proj", "o_proj", "q_proj", "up_proj", "v_proj")),
                lora.config().targetModules());
    }

    @Test
    void the_base_is_frozen_and_the_trainable_count_is_the_adapters() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        long baseCount = base.model().parameterCount();
        LoraModel lora = Lora.apply(base, LoraConfig.of(4, 8, 0, "q_proj", "v_proj"));
        // per layer: q_proj A 4×32 + B 32×4 = 256, v_proj A 4×32 + B 16×4 = 192; two layers
        assertEquals(896, lora.trainableParameterCount());
        assertEquals(baseCount + 896, lora.parameterCount());
        assertEquals(String.format(Locale.ROOT, "trainable params: 896 || all params: %,d || trainable%%: %.4f", baseCount + 896,
                89600.0 / (baseCount + 896)), lora.trainableParameters());
        for (var e : base.model().namedParameters().entrySet()) {
            assertEquals(!e.getKey().contains(".lora_"), e.getValue().frozen(), e.getKey());
        }
    }

    @Test
    void b_at_zero_gives_the_base_s_logits_exactly_and_gradients_reach_only_the_adapters() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        float[] before = logits(base.model());
        LoraModel lora = Lora.apply(base, LoraConfig.of(4, 8, 0, "q_proj", "v_proj", "down_proj"));
        assertArrayEquals(before, logits(lora.model()), "an untrained adapter changes nothing");
        lora.model().train();
        long[] ids = {1, 5, 9, 3, 3, 17, 0, 4};
        lora.model().loss(Tensor.fromArray(ids, 1, 8), Tensor.fromArray(new long[] {5, 9, 3, 3, 17, 0, 4, 2}, 1, 8)).backward();
        for (var e : lora.model().namedParameters().entrySet()) {
            Parameter p = e.getValue();
            if (p.frozen()) assertNull(p.grad(), e.getKey() + ": frozen, no gradient");
            else assertNotNull(p.grad(), e.getKey());
        }
        lora.adapters().values().forEach(a -> assertTrue(a.b().grad().abs().sum().item() > 0, "B's gradient"));
    }

    @Test
    void merged_and_unmerged_give_the_same_logits_and_unmerge_restores_the_base() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        float[] baseLogits = logits(base.model());
        var weightsBefore = base.model().stateDict().get("blocks.0.attn.q_proj.weight").toFloatArray();
        LoraModel lora = Lora.apply(base, LoraConfig.of(4, 8, 0, new TargetModules.AllLinear()));
        TinyBases.train(lora, 3);
        float[] adapted = logits(lora.model());
        assertTrue(maxDiff(baseLogits, adapted) > 1e-2, "the trained adapters change the logits");
        lora.merge();
        assertTrue(maxDiff(adapted, logits(lora.model())) < 1e-4, "merged logits: " + maxDiff(adapted, logits(lora.model())));
        lora.unmerge();
        assertTrue(maxDiff(adapted, logits(lora.model())) < 1e-4, "unmerged logits");
        // PEFT's unmerge subtracts what merge added: the weight comes back to within float32 rounding
        float[] weightsAfter = base.model().stateDict().get("blocks.0.attn.q_proj.weight").toFloatArray();
        assertTrue(maxDiff(weightsBefore, weightsAfter) <= 1e-6, "restored weight: " + maxDiff(weightsBefore, weightsAfter));
        assertTrue(maxDiff(baseLogits, logits(lora.unload())) < 1e-4, "unloaded: the base again");
    }

    @Test
    void merge_and_unload_leaves_a_plain_model_that_saves_in_the_base_s_layout() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        var baseKeys = List.copyOf(base.model().stateDict().keySet());
        LoraModel lora = Lora.apply(base, LoraConfig.of(4, 8, 0, "q_proj", "v_proj"));
        TinyBases.train(lora, 4);
        float[] adapted = logits(lora.model());
        var merged = lora.mergeAndUnload();
        assertEquals(baseKeys, List.copyOf(merged.stateDict().keySet()), "no adapter keys left");
        base.save(tmp.resolve("merged"));
        float[] reloaded = logits(PretrainedModels.load(tmp.resolve("merged")).model());
        assertTrue(maxDiff(adapted, reloaded) < 1e-4, "the saved merged model: " + maxDiff(adapted, reloaded));
        assertThrows(IllegalStateException.class, lora::merge, "the adapters are gone");
    }

    @Test
    void a_target_that_matches_nothing_or_a_second_apply_is_refused_naming_what_there_is() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        var none = assertThrows(IllegalArgumentException.class, () -> Lora.apply(base, LoraConfig.of(4, 8, 0, "c_attn")));
        assertTrue(none.getMessage().contains("[c_attn] matches no linear layer") && none.getMessage().contains("q_proj")
                && none.getMessage().contains("model.layers.0.self_attn.q_proj"), none.getMessage());
        Lora.apply(base, LoraConfig.of(4, 8, 0, "q_proj"));
        var twice = assertThrows(IllegalArgumentException.class, () -> Lora.apply(base, LoraConfig.of(4, 8, 0, "v_proj")));
        assertTrue(twice.getMessage().contains("carries adapters already (at blocks.0.attn.q_proj)"), twice.getMessage());
    }

    @Test
    void defaults_follow_peft_s_per_family_targets() throws Exception {
        PretrainedModel llama = TinyBases.llama(tmp.resolve("llama"));
        assertEquals(TargetModules.of("q_proj", "v_proj"), TargetModules.defaultFor(Lora.adaptableNames(llama.model(), ModuleNames.of(llama.layout()))));
        PretrainedModel gpt2 = TinyBases.gpt2(tmp.resolve("gpt2"), "transformer.");
        assertEquals(TargetModules.of("c_attn"), TargetModules.defaultFor(Lora.adaptableNames(gpt2.model(), ModuleNames.of(gpt2.layout()))));
    }

    @Test
    void a_symbiont_gpt_is_adapted_on_its_fused_qkv_under_symbiont_s_names() {
        var gpt = new dev.symbiont.models.gpt.Gpt(dev.symbiont.models.gpt.GptConfig.of(29, 16, 2, 4, 16).withFusedQkv(true), new Generator(2));
        float[] base = logits(gpt);
        TargetModules targets = TargetModules.defaultFor(Lora.adaptableNames(gpt, ModuleNames.SYMBIONT));
        assertEquals(TargetModules.of("qkv"), targets);
        LoraModel lora = Lora.apply(gpt, ModuleNames.SYMBIONT, LoraConfig.of(2, 4, 0, targets), new Generator(3));
        assertEquals(List.of("base_model.model.blocks.0.attn.qkv.lora_A.weight", "base_model.model.blocks.0.attn.qkv.lora_B.weight",
                "base_model.model.blocks.1.attn.qkv.lora_A.weight", "base_model.model.blocks.1.attn.qkv.lora_B.weight"),
                List.copyOf(lora.adapterStateDict().keySet()));
        assertArrayEquals(base, logits(gpt));
        TinyBases.train(lora, 9);
        float[] adapted = logits(gpt);
        assertTrue(maxDiff(base, adapted) > 1e-3, "the split projection adds the adapter's term");
        lora.merge();
        assertTrue(maxDiff(adapted, logits(gpt)) < 1e-4, "merged into the fused weight");
    }

    @Test
    void a_regular_expression_must_match_the_whole_name() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("llama"));
        LoraModel lora = Lora.apply(base, LoraConfig.of(2, 2, 0, TargetModules.parse("model\\.layers\\.1\\..*_proj")));
        assertEquals(7, lora.adapters().size(), "layer 1's projections only");
        assertTrue(lora.adapters().keySet().stream().allMatch(n -> n.startsWith("model.layers.1.")));
    }
}
