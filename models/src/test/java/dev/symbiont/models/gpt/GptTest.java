package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.StateDictMismatchException;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.block.DecodingState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

class GptTest {
    private static final GptConfig GPT2 = GptConfig.of(23, 16, 2, 4, 12);
    private static final GptConfig LLAMA = GPT2.withKvHeads(2).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU)
            .withPositions(PositionKind.ROPE).withFfSize(40).withTiedEmbeddings(false);

    static Stream<Arguments> configs() {
        return Stream.of(Arguments.of("learned positions, MHA", GPT2),
                Arguments.of("learned positions, GQA", GPT2.withKvHeads(2)),
                Arguments.of("RoPE, GQA, RMSNorm, SwiGLU", LLAMA),
                Arguments.of("RoPE, MQA", GPT2.withKvHeads(1).withPositions(PositionKind.ROPE)));
    }

    /** Random ids in [0, vocab), (batch, seq). */
    private static Tensor ids(long seed, int vocab, int batch, int seq) {
        Generator g = new Generator(seed);
        long[] v = new long[batch * seq];
        for (int i = 0; i < v.length; i++) v[i] = g.nextInt(vocab);
        return Tensor.fromArray(v, batch, seq);
    }

    private static void assertClose(float[] expected, float[] actual, double tol, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            if (!(Math.abs(expected[i] - actual[i]) <= tol)) {
                fail(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i] + " ± " + tol);
            }
        }
    }

    private static float[] positions(Tensor logits, int start, int length) {
        return logits.narrow(1, start, length).contiguous().toFloatArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void should_map_ids_to_logits_per_position(String name, GptConfig c) {
        Gpt model = new Gpt(c, new Generator(1));
        assertArrayEquals(new int[] {3, 7, 23}, model.forward(ids(2, 23, 3, 7)).shape());
        Tensor loss = model.loss(ids(2, 23, 3, 7), ids(3, 23, 3, 7));
        assertEquals(Math.log(23), loss.item(), 0.1, "small init gives near-uniform predictions");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void should_not_let_a_future_token_change_earlier_logits(String name, GptConfig c) {
        Gpt model = new Gpt(c, new Generator(4));
        long[] a = ids(5, 23, 1, 10).toLongArray(), b = a.clone();
        b[7] = (b[7] + 1) % 23;
        b[9] = (b[9] + 5) % 23;
        Tensor la = model.forward(Tensor.fromArray(a, 1, 10)), lb = model.forward(Tensor.fromArray(b, 1, 10));
        // Not bit-exact: a vector exp can round differently interpreted and JIT-compiled.
        assertClose(positions(la, 0, 7), positions(lb, 0, 7), 1e-5, name + ": positions 0..6");
        assertFalse(Arrays.equals(positions(la, 7, 1), positions(lb, 7, 1)), "position 7 sees its own token");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void should_give_the_full_recompute_logits_when_decoding_over_a_kv_cache(String name, GptConfig c) {
        Gpt model = new Gpt(c, new Generator(6));
        model.eval();
        Tensor ids = ids(7, 23, 2, 12);
        try (var noGrad = GradMode.disabled()) {
            Tensor full = model.forward(ids);
            DecodingState state = model.newState(12);
            int at = 0;
            for (int len : new int[] {5, 1, 1, 3, 1, 1}) {
                Tensor step = model.forward(ids.narrow(1, at, len), state);
                assertClose(positions(full, at, len), step.toFloatArray(), 1e-4, name + ": positions " + at + ".." + (at + len - 1));
                at += len;
            }
            assertEquals(12, state.length());
            var e = assertThrows(IllegalArgumentException.class, () -> model.forward(ids.narrow(1, 0, 1), state));
            assertTrue(e.getMessage().contains("exceed maxSeq 12"), e.getMessage());
        }
    }

    @Test
    void should_tie_the_output_head_to_the_token_embedding() {
        Gpt tied = new Gpt(GPT2, new Generator(8));
        var state = tied.stateDict();
        assertTrue(state.containsKey("tok_emb.weight") && state.containsKey("lm_head.weight"), state.keySet().toString());
        Parameter emb = tied.namedParameters().get("tok_emb.weight");
        assertFalse(tied.namedParameters().containsKey("lm_head.weight"), "a tied parameter is listed once");
        emb.update(Tensor.full(0.5, 23, 16));
        assertEquals(0.5f, tied.stateDict().get("lm_head.weight").toFloatArray()[17], "one tensor under two names");
        Gpt untied = new Gpt(GPT2.withTiedEmbeddings(false), new Generator(8));
        assertEquals(tied.parameterCount() + 23 * 16, untied.parameterCount());
        assertTrue(untied.namedParameters().containsKey("lm_head.weight"));
    }

    @Test
    void should_use_gpt2_key_names() {
        var keys = List.copyOf(new Gpt(GPT2, new Generator(1)).stateDict().keySet());
        assertEquals(List.of("tok_emb.weight", "pos_emb.weight"), keys.subList(0, 2));
        assertTrue(keys.containsAll(List.of("blocks.0.norm1.weight", "blocks.0.attn.qkv.weight", "blocks.0.attn.proj.bias",
                "blocks.1.mlp.fc.weight", "blocks.1.mlp.proj.weight", "blocks.1.norm2.bias", "norm_f.weight", "norm_f.bias")), keys.toString());
        assertEquals("lm_head.weight", keys.getLast());
        var llama = new Gpt(LLAMA, new Generator(1)).stateDict().keySet();
        assertFalse(llama.contains("pos_emb.weight"), "RoPE has no position table");
        assertTrue(llama.containsAll(List.of("blocks.0.mlp.w1.weight", "blocks.0.mlp.w3.weight", "norm_f.weight")), llama.toString());
        assertFalse(llama.contains("norm_f.bias"));
    }

    @Test
    void should_load_its_own_checkpoint_and_refuse_one_of_another_config() {
        Gpt source = new Gpt(LLAMA, new Generator(9)), target = new Gpt(LLAMA, new Generator(10));
        target.loadStateDict(source.stateDict(), true);
        Tensor ids = ids(11, 23, 1, 6);
        assertArrayEquals(source.forward(ids).toFloatArray(), target.forward(ids).toFloatArray());
        Gpt other = new Gpt(LLAMA.withKvHeads(4), new Generator(12));
        var e = assertThrows(StateDictMismatchException.class, () -> other.loadStateDict(source.stateDict(), true));
        assertTrue(e.getMessage().contains("blocks.0.attn.qkv.weight"), e.getMessage());
        Gpt learned = new Gpt(GPT2, new Generator(12));
        e = assertThrows(StateDictMismatchException.class, () -> learned.loadStateDict(source.stateDict(), true));
        assertTrue(e.getMessage().contains("pos_emb.weight"), e.getMessage());
    }

    @Test
    void should_generate_reproducibly_from_a_seed() {
        Gpt model = new Gpt(LLAMA, new Generator(13));
        long[] prompt = {3, 1, 4};
        Sampling s = Sampling.temperature(1.5).withTopK(10).withTopP(0.95);
        long[] a = model.generate(prompt, 8, s, new Generator(99)), b = model.generate(prompt, 8, s, new Generator(99));
        assertArrayEquals(a, b);
        assertEquals(11, a.length);
        assertArrayEquals(prompt, Arrays.copyOf(a, 3), "the prompt comes first");
        boolean differs = false;
        for (long seed = 100; seed < 105 && !differs; seed++) differs = !Arrays.equals(a, model.generate(prompt, 8, s, new Generator(seed)));
        assertTrue(differs, "other seeds sample other continuations");
        assertTrue(model.isTraining(), "the training mode is restored");
    }

    @Test
    void should_generate_the_argmax_of_a_full_recompute_when_greedy() {
        Gpt model = new Gpt(GPT2.withKvHeads(2), new Generator(14));
        long[] out = model.generate(new long[] {5, 9}, 10, Sampling.greedy(), new Generator(0));
        model.eval();
        for (int n = 2; n < out.length; n++) {
            Tensor logits = model.forward(Tensor.fromArray(Arrays.copyOf(out, n), 1, n));
            assertEquals(Sampler.argmax(logits.select(1, n - 1).toFloatArray()), out[n], "token " + n);
        }
    }

    @Test
    void should_refuse_prompts_and_lengths_that_do_not_fit() {
        Gpt model = new Gpt(GPT2, new Generator(15));
        var e = assertThrows(IllegalArgumentException.class, () -> model.generate(new long[10], 3, Sampling.greedy(), new Generator(0)));
        assertTrue(e.getMessage().contains("10 tokens + 3 new tokens exceeds maxSeq 12"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> model.generate(new long[0], 3, Sampling.greedy(), new Generator(0)));
        e = assertThrows(IllegalArgumentException.class, () -> model.generate(new long[] {1, 23}, 3, Sampling.greedy(), new Generator(0)));
        assertTrue(e.getMessage().contains("token 1 = 23"), e.getMessage());
        assertEquals(12, model.generate(new long[10], 2, Sampling.greedy(), new Generator(0)).length, "exactly maxSeq is fine");
        e = assertThrows(IllegalArgumentException.class, () -> model.forward(ids(1, 23, 1, 13)));
        assertTrue(e.getMessage().contains("exceed maxSeq 12"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> model.forward(Tensor.zeros(1, 4)));
        assertTrue(e.getMessage().contains("integer"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> model.loss(ids(1, 23, 2, 4), ids(1, 23, 2, 5)));
    }

    @Test
    void should_score_only_targets_other_than_minus_100() {
        Gpt model = new Gpt(GPT2, new Generator(16));
        Tensor ids = ids(17, 23, 1, 5);
        long[] targets = {-100, -100, 7, -100, -100};
        double loss = model.loss(ids, Tensor.fromArray(targets, 1, 5)).item();
        float[] row = model.forward(ids).select(1, 2).toFloatArray();
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (float l : row) max = Math.max(max, l);
        for (float l : row) sum += Math.exp(l - max);
        assertEquals(Math.log(sum) + max - row[7], loss, 1e-5);
    }

    @Test
    void should_train_the_same_with_activation_checkpointing() {
        GptConfig c = LLAMA.withDropout(0.1);
        Gpt plain = new Gpt(c, new Generator(18)), checkpointed = new Gpt(c, new Generator(18)).activationCheckpointing(true);
        Tensor ids = ids(19, 23, 2, 8), targets = ids(20, 23, 2, 8);
        Tensor la = plain.loss(ids, targets), lb = checkpointed.loss(ids, targets);
        assertEquals(la.item(), lb.item(), 1e-6);
        la.backward();
        lb.backward();
        var pb = checkpointed.namedParameters();
        plain.namedParameters().forEach((name, p) -> assertClose(p.grad().toFloatArray(), pb.get(name).grad().toFloatArray(), 1e-5, name));
    }
}
