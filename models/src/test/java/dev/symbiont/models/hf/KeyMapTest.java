package dev.symbiont.models.hf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Renaming keys between a Symbiont state dict and a Hugging Face checkpoint, both ways. */
class KeyMapTest {
    private static final KeyMap MAP = new KeyMap(List.of(
            new KeyMap.Rule("model.layers.#.self_attn.o_proj", "blocks.#.attn.out_proj", false),
            new KeyMap.Rule("h.#.mlp.c_fc", "blocks.#.mlp.fc", true),
            new KeyMap.Rule("lm_head", "lm_head", false)));

    @Test
    void should_carry_the_layer_number_and_the_parameter_name_both_ways() {
        assertEquals(new KeyMap.Mapped("blocks.12.attn.out_proj.weight", false), MAP.toSymbiont("model.layers.12.self_attn.o_proj.weight"));
        assertEquals(new KeyMap.Mapped("model.layers.12.self_attn.o_proj.bias", false), MAP.toHf("blocks.12.attn.out_proj.bias"));
        assertEquals(new KeyMap.Mapped("lm_head.weight", false), MAP.toHf("lm_head.weight"));
    }

    @Test
    void should_mark_a_conv1d_weight_as_transposed_but_not_its_bias() {
        assertTrue(MAP.toSymbiont("h.0.mlp.c_fc.weight").transposed());
        assertFalse(MAP.toSymbiont("h.0.mlp.c_fc.bias").transposed());
        assertEquals("h.3.mlp.c_fc.weight", MAP.toHf("blocks.3.mlp.fc.weight").key());
    }

    @Test
    void should_leave_keys_no_rule_names_unmapped() {
        assertNull(MAP.toSymbiont("model.layers.x.self_attn.o_proj.weight"), "not a layer number");
        assertNull(MAP.toSymbiont("model.layers.01.self_attn.o_proj.weight"), "a layer number has one spelling");
        assertNull(MAP.toSymbiont("model.layers.1.self_attn.o_proj"), "a prefix without a parameter name");
        assertNull(MAP.toSymbiont("model.layers.1.self_attn.q_proj.weight"));
        assertNull(MAP.toHf("blocks.1.attn.qkv.weight"));
    }

    @Test
    void should_add_a_checkpoint_prefix_except_where_told() {
        KeyMap prefixed = MAP.withHfPrefix("transformer.", "lm_head");
        assertEquals("transformer.h.2.mlp.c_fc.weight", prefixed.toHf("blocks.2.mlp.fc.weight").key());
        assertEquals("lm_head.weight", prefixed.toHf("lm_head.weight").key());
        assertNull(prefixed.toSymbiont("h.2.mlp.c_fc.weight"));
        var e = assertThrows(IllegalArgumentException.class, () -> new KeyMap.Rule("a.#.b", "c.d", false));
        assertTrue(e.getMessage().contains("differ in layer numbers"), e.getMessage());
    }
}
