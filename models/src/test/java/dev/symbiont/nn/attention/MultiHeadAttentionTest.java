package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.attention.Attention;
import dev.symbiont.core.ops.Masks;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.cpu.CpuBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.symbiont.nn.attention.AttentionTesting.assertClose;
import static dev.symbiont.nn.attention.AttentionTesting.randn;
import static dev.symbiont.nn.attention.AttentionTesting.rows;
import static org.junit.jupiter.api.Assertions.*;

class MultiHeadAttentionTest {
    private static final BlockConfig BASE = BlockConfig.of(16, 4, 32);

    @ParameterizedTest
    @ValueSource(ints = {4, 2, 1})
    void should_map_batch_seq_dmodel_to_the_same_shape(int kvHeads) {
        for (BlockConfig c : List.of(BASE.withKvHeads(kvHeads), BASE.withKvHeads(kvHeads).withFusedQkv(false).withRope(16))) {
            MultiHeadAttention attn = new MultiHeadAttention(c, new Generator(1));
            assertArrayEquals(new int[] {2, 5, 16}, attn.forward(randn(2, 2, 5, 16), null, true, null).shape(), c.toString());
        }
    }

    @Test
    void should_name_weights_like_gpt2_when_fused_and_like_hugging_face_when_separate() {
        var fused = new MultiHeadAttention(BASE.withKvHeads(2), new Generator(1)).stateDict();
        assertEquals(List.of("qkv.weight", "qkv.bias", "proj.weight", "proj.bias"), List.copyOf(fused.keySet()));
        assertArrayEquals(new int[] {16 + 2 * 2 * 4, 16}, fused.get("qkv.weight").shape(), "rows: q, then k and v of 2 kv heads");
        var separate = new MultiHeadAttention(BASE.withKvHeads(2).withFusedQkv(false).withBias(false).withRope(8), new Generator(1)).stateDict();
        assertEquals(List.of("q_proj.weight", "k_proj.weight", "v_proj.weight", "out_proj.weight"), List.copyOf(separate.keySet()));
        assertArrayEquals(new int[] {8, 16}, separate.get("k_proj.weight").shape());
    }

    @Test
    void should_equal_separate_projections_when_the_fused_weight_stacks_them() {
        BlockConfig c = BASE.withKvHeads(2).withRope(8);
        MultiHeadAttention separate = new MultiHeadAttention(c.withFusedQkv(false), new Generator(3));
        MultiHeadAttention fused = new MultiHeadAttention(c, new Generator(4));
        var s = separate.stateDict();
        Map<String, Tensor> state = new HashMap<>();
        state.put("qkv.weight", Tensor.cat(List.of(s.get("q_proj.weight"), s.get("k_proj.weight"), s.get("v_proj.weight")), 0));
        state.put("qkv.bias", Tensor.cat(List.of(s.get("q_proj.bias"), s.get("k_proj.bias"), s.get("v_proj.bias")), 0));
        state.put("proj.weight", s.get("out_proj.weight"));
        state.put("proj.bias", s.get("out_proj.bias"));
        fused.loadStateDict(state, true);
        Tensor x = randn(5, 2, 7, 16);
        assertClose(separate.forward(x, null, true, null), fused.forward(x, null, true, null), 1e-5, "fused vs separate");
    }

    /** Grouped-query attention is multi-head attention whose kv heads are repeated (repeat_interleave) to every query head of their group. */
    @ParameterizedTest
    @ValueSource(ints = {2, 1})
    void should_equal_multi_head_attention_with_the_kv_heads_repeated(int kvHeads) {
        BlockConfig c = BASE.withFusedQkv(false).withRope(16);
        MultiHeadAttention gqa = new MultiHeadAttention(c.withKvHeads(kvHeads), new Generator(5));
        MultiHeadAttention mha = new MultiHeadAttention(c, new Generator(6));
        Map<String, Tensor> state = new HashMap<>(gqa.stateDict());
        int group = 4 / kvHeads, headDim = 4;
        for (String proj : List.of("k_proj", "v_proj")) {
            for (String kind : List.of("weight", "bias")) {
                Tensor t = state.get(proj + "." + kind);
                List<Tensor> perHead = new ArrayList<>();
                for (int h = 0; h < 4; h++) perHead.add(t.narrow(0, (h / group) * headDim, headDim));
                state.put(proj + "." + kind, Tensor.cat(perHead, 0));
            }
        }
        mha.loadStateDict(state, true);
        Tensor x = randn(7, 3, 6, 16);
        assertClose(mha.forward(x, null, true, null), gqa.forward(x, null, true, null), 1e-5, "kvHeads " + kvHeads);
        assertClose(mha.forward(x, null, false, null), gqa.forward(x, null, false, null), 1e-5, "kvHeads " + kvHeads + ", bidirectional");
    }

    @Test
    void should_not_let_a_future_token_change_earlier_outputs_when_causal() {
        MultiHeadAttention attn = new MultiHeadAttention(BASE.withKvHeads(2).withRope(16), new Generator(8));
        Tensor x = randn(9, 1, 6, 16);
        Tensor changed = Tensor.cat(List.of(x.narrow(1, 0, 4), randn(10, 1, 2, 16)), 1);
        Tensor a = attn.forward(x, null, true, null), b = attn.forward(changed, null, true, null);
        assertClose(rows(a, 0, 4), rows(b, 0, 4), 0, "positions 0..3");
        assertNotEquals(a.narrow(1, 4, 2).sum().item(), b.narrow(1, 4, 2).sum().item());
        Tensor c = attn.forward(x, null, false, null), d = attn.forward(changed, null, false, null);
        assertNotEquals(c.narrow(1, 0, 1).sum().item(), d.narrow(1, 0, 1).sum().item(), "bidirectional: position 0 sees the future");
    }

    @Test
    void should_decode_incrementally_over_a_kv_cache_as_over_the_full_sequence() {
        for (BlockConfig c : List.of(BASE, BASE.withKvHeads(2).withRope(16), BASE.withKvHeads(1).withFusedQkv(false).withRope(16))) {
            MultiHeadAttention attn = new MultiHeadAttention(c, new Generator(11));
            Tensor x = randn(12, 2, 9, 16);
            Tensor full = attn.forward(x, null, true, null);
            KvCache cache = new KvCache(9);
            int[] chunks = {4, 1, 3, 1};
            int at = 0;
            for (int len : chunks) {
                Tensor step = attn.forward(x.narrow(1, at, len), null, true, cache);
                assertClose(rows(full, at, len), step.toFloatArray(), 1e-5, c + ": positions " + at + ".." + (at + len - 1));
                at += len;
            }
            assertEquals(9, cache.length());
        }
    }

    @Test
    void should_add_an_additive_mask_broadcast_over_heads_and_queries() {
        MultiHeadAttention attn = new MultiHeadAttention(BASE, new Generator(13));
        Tensor x = randn(14, 2, 5, 16);
        Tensor padding = Tensor.fromArray(new long[] {1, 1, 1, 0, 0, 1, 1, 1, 1, 1}, 2, 5);
        Tensor masked = attn.forward(x, Masks.keyPadding(padding), false, null);
        Tensor alone = attn.forward(x.narrow(0, 0, 1).narrow(1, 0, 3), null, false, null);
        assertClose(alone.toFloatArray(), masked.narrow(0, 0, 1).narrow(1, 0, 3).contiguous().toFloatArray(), 1e-5, "padding keys ignored");
        assertClose(attn.forward(x.narrow(0, 1, 1), null, false, null), masked.narrow(0, 1, 1).contiguous(), 1e-5, "unpadded row");
    }

    @Test
    void should_match_the_fused_op_when_materialising_the_scores() {
        Tensor q = randn(15, 2, 6, 3, 4), k = randn(16, 2, 2, 7, 4), v = randn(17, 2, 2, 7, 4);
        Tensor mask = randn(18, 2, 1, 1, 7);
        for (boolean causal : new boolean[] {false, true}) {
            assertClose(Attention.scaledDotProductAttention(q, k, v, mask, causal, 0.3),
                    MaterializedAttention.attend(q, k, v, mask, causal, 0.3, null), 1e-5, "causal " + causal);
        }
    }

    @Test
    void should_give_zeros_like_the_fused_op_for_a_query_that_sees_no_key() {
        Tensor q = randn(21, 1, 2, 4, 4).requiresGrad(true), k = randn(22, 1, 2, 2, 4), v = randn(23, 1, 2, 2, 4);
        Tensor materialised = MaterializedAttention.attend(q, k, v, null, true, 0.5, null); // 4 queries, 2 keys
        assertClose(Attention.scaledDotProductAttention(q, k, v, null, true, 0.5), materialised, 1e-5, "causal, sq > sk");
        float[] out = materialised.toFloatArray();
        for (int head = 0; head < 2; head++) {
            for (int j = 0; j < 4; j++) assertEquals(0f, out[head * 16 + j], "query 0 of head " + head + " sees no key");
        }
        materialised.sum().backward();
        for (float g : q.grad().toFloatArray()) assertTrue(Float.isFinite(g), "finite gradients");
    }

    @Test
    void should_match_the_fused_op_gradients_when_materialising_the_scores() {
        Tensor mask = randn(18, 2, 1, 1, 7);
        Tensor[] fused = gradients(true, mask), materialised = gradients(false, mask);
        for (int i = 0; i < 3; i++) assertClose(fused[i], materialised[i], 1e-4, "gradient of " + "qkv".charAt(i));
    }

    /** Gradients of sum(attention · w) for a fixed random w, w.r.t. q, k and v, through either path. */
    private static Tensor[] gradients(boolean fused, Tensor mask) {
        Tensor q = randn(15, 2, 6, 3, 4).requiresGrad(true), k = randn(16, 2, 2, 7, 4).requiresGrad(true),
                v = randn(17, 2, 2, 7, 4).requiresGrad(true);
        Tensor y = fused ? Attention.scaledDotProductAttention(q, k, v, mask, true, 0.3)
                : MaterializedAttention.attend(q, k, v, mask, true, 0.3, null);
        y.mul(randn(19, 2, 6, 3, 4)).sum().backward();
        return new Tensor[] {q.grad(), k.grad(), v.grad()};
    }

    @Test
    void should_drop_attention_probabilities_only_in_training() {
        MultiHeadAttention attn = new MultiHeadAttention(BASE.withDropout(0.5), new Generator(19));
        Tensor x = randn(20, 2, 5, 16);
        Tensor first = attn.forward(x), second = attn.forward(x);
        assertNotEquals(first.sum().item(), second.sum().item(), "fresh masks each call");
        attn.eval();
        assertClose(attn.forward(x), attn.forward(x), 0, "eval is deterministic");
        MultiHeadAttention noDropout = new MultiHeadAttention(BASE, new Generator(19));
        assertClose(noDropout.forward(x), attn.forward(x), 1e-6, "eval equals p = 0 with the same weights");
    }

    @Test
    void should_pass_gradients_to_every_projection() {
        MultiHeadAttention attn = new MultiHeadAttention(BASE.withKvHeads(2).withFusedQkv(false).withRope(8).withDropout(0.1), new Generator(21));
        attn.forward(randn(22, 2, 5, 16), null, true, null).square().sum().backward();
        attn.namedParameters().forEach((name, p) -> {
            assertNotNull(p.grad(), name);
            assertTrue(p.grad().abs().sum().item() > 0, name);
        });
    }

    @Test
    void should_reject_inputs_of_the_wrong_shape() {
        MultiHeadAttention attn = new MultiHeadAttention(BASE, new Generator(1));
        var e = assertThrows(IllegalArgumentException.class, () -> attn.forward(Tensor.zeros(2, 5, 12)));
        assertTrue(e.getMessage().contains("[2, 5, 12]") && e.getMessage().contains("16"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> attn.forward(Tensor.zeros(5, 16)));
    }

    @Test
    void should_reject_bad_block_configs_with_the_numbers() {
        var e = assertThrows(IllegalArgumentException.class, () -> BlockConfig.of(16, 3, 32));
        assertTrue(e.getMessage().contains("heads (3) must divide dModel (16)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BASE.withKvHeads(3));
        assertTrue(e.getMessage().contains("kvHeads (3) must divide heads (4)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BlockConfig.of(12, 4, 8).withRope(16));
        assertTrue(e.getMessage().contains("even head size"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BASE.withDropout(1.0));
    }

    @Test
    void should_run_without_recording_under_no_grad() {
        MultiHeadAttention attn = new MultiHeadAttention(BASE, new Generator(1));
        try (var noGrad = GradMode.disabled()) {
            assertFalse(attn.forward(randn(1, 1, 3, 16)).requiresGrad());
        }
    }
    /**
     * On the CPU kernel the head split reads the projections in place, the output is written in
     * (batch, seq, heads, headDim) order and the gradients of q, k and v in their projections'
     * order, so neither the merge nor the backward of the split copies.
     */
    @Test
    void should_split_and_merge_heads_without_copies_forward_and_backward() {
        try (var cpu = Backends.use(new CpuBackend())) {
            MultiHeadAttention attn = new MultiHeadAttention(BASE.withKvHeads(2), new Generator(1));
            Tensor x = randn(5, 2, 7, 16).requiresGrad(true);
            ProfileReport report;
            try (var session = Profiler.start("attention heads")) {
                attn.forward(x, null, true, null).square().sum().backward();
                report = session.report();
            }
            assertTrue(report.op("scaled_dot_product_attention").isPresent(), report.table());
            assertTrue(report.op("contiguous").isEmpty(), "no head split or merge copies:\n" + report.table());
            assertNotNull(x.grad());
        }
    }
}
