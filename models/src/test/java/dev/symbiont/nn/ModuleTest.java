package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class ModuleTest {
    /** blocks.N.attn.qkv / blocks.N.mlp, the shape of a GPT's keys. */
    static final class Attn extends Module {
        final Linear qkv;
        Attn(Generator g) { qkv = module("qkv", new Linear(4, 12, true, g)); }
    }

    static final class Block extends Module {
        Block(Generator g) {
            module("attn", new Attn(g));
            module("mlp", new Sequential(new Linear(4, 8, true, g), Activation.gelu(), new Linear(8, 4, false, g)));
        }
    }

    static final class Model extends Module {
        final Embedding embed;
        final Linear head;
        Model(Generator g) {
            embed = module("embed", new Embedding(10, 4, g));
            module("blocks", new ModuleList<>(List.of(new Block(g), new Block(g))));
            head = module("head", new Linear(4, 10, false, g));
            // Weight tying: the head reuses the embedding matrix.
            parameter("lm_head_weight", embed.weight());
            buffer("position_ids", Tensor.arange(4), true);
            buffer("scratch", Tensor.zeros(2), false);
        }
    }

    @Test
    void should_name_state_dict_keys_like_pytorch() {
        Model m = new Model(new Generator(1));
        assertEquals(List.of("lm_head_weight", "position_ids", "embed.weight",
                "blocks.0.attn.qkv.weight", "blocks.0.attn.qkv.bias", "blocks.0.mlp.0.weight", "blocks.0.mlp.0.bias", "blocks.0.mlp.2.weight",
                "blocks.1.attn.qkv.weight", "blocks.1.attn.qkv.bias", "blocks.1.mlp.0.weight", "blocks.1.mlp.0.bias", "blocks.1.mlp.2.weight",
                "head.weight"), List.copyOf(m.stateDict().keySet()));
    }

    @Test
    void should_count_a_tied_parameter_once() {
        Model m = new Model(new Generator(1));
        long expected = 10 * 4 + 2 * (4 * 12 + 12 + 4 * 8 + 8 + 8 * 4) + 4 * 10;
        assertEquals(expected, m.parameterCount());
        assertFalse(m.namedParameters().containsKey("embed.weight"), "the first name of a tied parameter wins");
        assertSame(m.namedParameters().get("lm_head_weight"), m.embed.weight());
    }

    @Test
    void should_report_every_missing_unexpected_and_misshaped_key_and_change_nothing_when_strict() {
        Model m = new Model(new Generator(1));
        float[] before = m.head.weight().value().toFloatArray();
        Map<String, Tensor> state = new LinkedHashMap<>(new Model(new Generator(2)).stateDict());
        state.remove("blocks.1.attn.qkv.bias");
        state.put("blocks.9.extra", Tensor.zeros(3));
        state.put("head.weight", Tensor.zeros(5, 4));
        var e = assertThrows(StateDictMismatchException.class, () -> m.loadStateDict(state, true));
        assertEquals(List.of("blocks.1.attn.qkv.bias"), e.report().missing());
        assertEquals(List.of("blocks.9.extra"), e.report().unexpected());
        assertEquals("head.weight", e.report().mismatched().get(0).key());
        assertTrue(e.getMessage().contains("blocks.1.attn.qkv.bias") && e.getMessage().contains("blocks.9.extra")
                && e.getMessage().contains("head.weight: module has [10, 4], state dict has [5, 4]"), e.getMessage());
        assertArrayEquals(before, m.head.weight().value().toFloatArray(), "a failed strict load changes nothing");
        assertNotEquals(state.get("embed.weight").toFloatArray()[0], m.embed.weight().value().toFloatArray()[0]);
    }

    @Test
    void should_load_matching_keys_and_return_the_report_when_not_strict() {
        Model m = new Model(new Generator(1));
        Map<String, Tensor> state = new LinkedHashMap<>(new Model(new Generator(2)).stateDict());
        state.remove("head.weight");
        LoadReport report = m.loadStateDict(state, false);
        assertEquals(List.of("head.weight"), report.missing());
        assertArrayEquals(state.get("blocks.0.attn.qkv.weight").toFloatArray(),
                m.stateDict().get("blocks.0.attn.qkv.weight").toFloatArray());
    }

    @Test
    void should_reproduce_outputs_after_a_state_dict_round_trip() {
        Model a = new Model(new Generator(1)), b = new Model(new Generator(2));
        assertTrue(b.loadStateDict(a.stateDict(), true).isClean());
        Tensor x = Tensor.randn(new Generator(3), 2, 4);
        Sequential mlpA = (Sequential) ((Block) ((ModuleList<?>) a.children().get("blocks")).get(0)).children().get("mlp");
        Sequential mlpB = (Sequential) ((Block) ((ModuleList<?>) b.children().get("blocks")).get(0)).children().get("mlp");
        assertArrayEquals(mlpA.forward(x).toFloatArray(), mlpB.forward(x).toFloatArray());
    }

    @Test
    void should_give_frozen_parameters_no_gradient() {
        Sequential net = new Sequential(new Linear(3, 4, true, new Generator(1)), Activation.tanh(), new Linear(4, 1, true, new Generator(2)));
        Linear first = (Linear) net.get(0);
        first.freeze();
        assertEquals(4 + 1, net.trainableParameterCount());
        net.forward(Tensor.randn(new Generator(3), 5, 3)).sum().backward();
        assertNull(first.weight().grad());
        assertNotNull(((Linear) net.get(2)).weight().grad());
        first.unfreeze();
        assertEquals(net.parameterCount(), net.trainableParameterCount());
    }

    @Test
    void should_switch_every_descendant_between_train_and_eval() {
        Model m = new Model(new Generator(1));
        m.eval();
        assertTrue(m.modules().stream().noneMatch(Module::isTraining));
        m.train();
        assertTrue(m.modules().stream().allMatch(Module::isTraining));
    }

    @Test
    void should_keep_the_wrapped_layers_keys_when_checkpointed() {
        Sequential plain = new Sequential(new Linear(3, 3, true, new Generator(1)));
        Sequential wrapped = new Sequential(new Checkpointed(new Linear(3, 3, true, new Generator(1))));
        assertEquals(plain.stateDict().keySet(), wrapped.stateDict().keySet());
        assertEquals(2, wrapped.parameters().size());
    }

    @Test
    void should_write_optimizer_updates_in_place_so_holders_see_them() {
        Parameter p = new Parameter(Tensor.zeros(2, 2));
        Tensor held = p.value();
        p.update(Tensor.ones(2, 2));
        assertArrayEquals(new float[] {1, 1, 1, 1}, held.toFloatArray());
        var e = assertThrows(IllegalArgumentException.class, () -> p.update(Tensor.ones(4)));
        assertTrue(e.getMessage().contains("[2, 2]") && e.getMessage().contains("[4]"), e.getMessage());
    }

    @Test
    void should_move_parameters_and_buffers_to_another_backend() {
        Model m = new Model(new Generator(1));
        float[] before = m.head.weight().value().toFloatArray();
        dev.symbiont.core.backend.Backend reference = dev.symbiont.core.backend.Backends.get("reference");
        m.to(reference);
        for (Tensor t : m.stateDict().values()) assertSame(reference, t.backend());
        assertSame(m.namedParameters().get("lm_head_weight"), m.embed.weight(), "tying survives the move");
        assertArrayEquals(before, m.head.weight().value().toFloatArray());
        Tensor y = m.head.forward(Tensor.ones(1, 4).to(reference));
        assertSame(reference, y.backend());
    }

    @Test
    void should_move_to_the_device_a_string_names() {
        Model m = new Model(new Generator(1));
        assertSame(m, m.to("reference:0"));
        for (Tensor t : m.stateDict().values()) assertEquals("reference", t.device().toString());
        var e = assertThrows(IllegalArgumentException.class, () -> m.to("reference:1"));
        assertTrue(e.getMessage().contains("no device 'reference:1'"), e.getMessage());
    }

    @Test
    void should_reject_dotted_or_duplicate_names() {
        class Bad extends Module {
            Bad(String second) {
                parameter("w", Tensor.zeros(1));
                parameter(second, Tensor.zeros(1));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new Bad("w"));
        assertThrows(IllegalArgumentException.class, () -> new Bad("a.b"));
    }
}
