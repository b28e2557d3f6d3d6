package dev.symbiont.models.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Sampler;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.mamba.MambaMixer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Mamba language model: Hugging Face's keys and shapes, its metadata, and constant-memory decoding equal to the full forward. */
class MambaLMTest {
    /** vocab 11, d_model 8, 2 layers, N 4, d_conv 4, expand 2: d_inner 16, dt_rank ⌈8/16⌉ = 1. */
    private static final MambaLMConfig CONFIG = MambaLMConfig.of(11, 8, 2, 4, 4, 2);

    private static MambaLM model() { return new MambaLM(CONFIG, new Generator(5), 0.5); }

    private static Tensor ids(int batch, int seq, long seed) { return RandomIds.of(CONFIG.vocab(), batch, seq, seed); }

    @Test
    void stateDictHasHuggingFaceMambaForCausalLMKeysAndShapes() {
        Map<String, List<Integer>> expected = new LinkedHashMap<>();
        expected.put("backbone.embeddings.weight", List.of(11, 8));
        for (int i = 0; i < 2; i++) {
            String p = "backbone.layers." + i + ".";
            expected.put(p + "norm.weight", List.of(8));
            expected.put(p + "mixer.in_proj.weight", List.of(32, 8));
            expected.put(p + "mixer.conv1d.weight", List.of(16, 1, 4));
            expected.put(p + "mixer.conv1d.bias", List.of(16));
            expected.put(p + "mixer.x_proj.weight", List.of(1 + 2 * 4, 16));
            expected.put(p + "mixer.dt_proj.weight", List.of(16, 1));
            expected.put(p + "mixer.dt_proj.bias", List.of(16));
            expected.put(p + "mixer.A_log", List.of(16, 4));
            expected.put(p + "mixer.D", List.of(16));
            expected.put(p + "mixer.out_proj.weight", List.of(8, 16));
        }
        expected.put("backbone.norm_f.weight", List.of(8));
        expected.put("lm_head.weight", List.of(11, 8));
        MambaLM model = model();
        Map<String, List<Integer>> actual = new LinkedHashMap<>();
        model.stateDict().forEach((k, t) -> actual.put(k, Arrays.stream(t.shape()).boxed().toList()));
        assertEquals(expected, actual);
        assertSame(model.namedParameters().get("backbone.embeddings.weight"), model.lmHead().weight(), "lm_head is tied to the embeddings");
        assertFalse(model.namedParameters().containsKey("lm_head.weight"), "a tied parameter is counted once");
    }

    @Test
    void metadataRebuildsTheModelAndItsWeightsGiveTheSameLogits() {
        MambaLM model = model();
        Map<String, String> meta = model.metadata();
        assertEquals("mamba", meta.get(CausalLM.ARCHITECTURE));
        assertEquals("16", meta.get("intermediate_size"));
        assertEquals("2", meta.get("expand"));
        assertEquals(CONFIG, MambaLMConfig.fromMap(meta));
        MambaLM rebuilt = new MambaLM(MambaLMConfig.fromMap(meta), new Generator(99));
        rebuilt.loadStateDict(model.stateDict(), true);
        Tensor x = ids(2, 7, 1);
        assertArrayEquals(model.forward(x).toFloatArray(), rebuilt.forward(x).toFloatArray());
        var e = assertThrows(IllegalArgumentException.class, () -> MambaLMConfig.fromMap(Map.of("vocab_size", "3")));
        assertTrue(e.getMessage().contains("'hidden_size' is missing"), e.getMessage());
        assertFalse(meta.containsKey("tie_word_embeddings"), "a tied model's metadata is what it was before the key existed");
    }

    @Test
    void anUntiedHeadIsAMatrixOfItsOwnAndItsMetadataSaysSo() {
        MambaLM untied = new MambaLM(CONFIG.withTiedEmbeddings(false), new Generator(4));
        assertNotSame(untied.stateDict().get("backbone.embeddings.weight").storage(), untied.stateDict().get("lm_head.weight").storage());
        assertEquals(2, untied.parameters().stream().filter(p -> p.shape()[0] == CONFIG.vocab()).count(), "embeddings and head");
        Map<String, String> meta = untied.metadata();
        assertEquals("false", meta.get("tie_word_embeddings"));
        MambaLM rebuilt = new MambaLM(MambaLMConfig.fromMap(meta), new Generator(5));
        rebuilt.loadStateDict(untied.stateDict(), true);
        Tensor x = ids(1, 5, 2);
        assertArrayEquals(untied.forward(x).toFloatArray(), rebuilt.forward(x).toFloatArray());
        Map<String, String> bad = new java.util.HashMap<>(meta);
        bad.put("tie_word_embeddings", "maybe");
        var e = assertThrows(IllegalArgumentException.class, () -> MambaLMConfig.fromMap(bad));
        assertTrue(e.getMessage().contains("'tie_word_embeddings' = 'maybe' is not true or false"), e.getMessage());
    }

    @Test
    void decodingTokenByTokenGivesTheFullForwardsLogits() {
        MambaLM model = model();
        Tensor x = ids(2, 11, 2);
        try (var noGrad = GradMode.disabled()) {
            float[] full = model.forward(x).toFloatArray();
            DecodingState state = model.newState(11);
            List<Tensor> parts = new ArrayList<>(List.of(model.forward(x.narrow(1, 0, 4), state)));   // prefill through the parallel scan
            for (int t = 4; t < 11; t++) parts.add(model.forward(x.narrow(1, t, 1), state));        // then the recurrence
            float[] stepped = Tensor.cat(parts, 1).toFloatArray();
            assertEquals(full.length, stepped.length);
            for (int i = 0; i < full.length; i++) assertEquals(full[i], stepped[i], 1e-4, "logit " + i);
            assertEquals(11, state.length());
        }
    }

    @Test
    void prefillInTwoPiecesGivesOnePiecesAndTokenByTokenLogitsAndFinalStates() {
        MambaLM model = model();
        Tensor x = ids(2, 13, 4);
        try (var noGrad = GradMode.disabled()) {
            DecodingState whole = model.newState(13), pieces = model.newState(13), tokens = model.newState(13);
            float[] one = model.forward(x, whole).toFloatArray();
            // the second piece is longer than the conv window, so it reads the saved inputs and then its own
            float[] two = Tensor.cat(List.of(model.forward(x.narrow(1, 0, 5), pieces), model.forward(x.narrow(1, 5, 8), pieces)), 1)
                    .toFloatArray();
            List<Tensor> steps = new ArrayList<>();
            for (int t = 0; t < 13; t++) steps.add(model.forward(x.narrow(1, t, 1), tokens));
            float[] stepped = Tensor.cat(steps, 1).toFloatArray();
            assertClose(one, two, "two pieces' logits");
            assertClose(one, stepped, "token-by-token logits");
            for (int i = 0; i < whole.layers(); i++) {
                MambaMixer.State w = (MambaMixer.State) whole.layer(i), p = (MambaMixer.State) pieces.layer(i),
                        s = (MambaMixer.State) tokens.layer(i);
                assertClose(w.conv().toFloatArray(), p.conv().toFloatArray(), "layer " + i + " conv state, two pieces");
                assertClose(w.ssm().toFloatArray(), p.ssm().toFloatArray(), "layer " + i + " ssm state, two pieces");
                assertClose(w.conv().toFloatArray(), s.conv().toFloatArray(), "layer " + i + " conv state, token by token");
                assertClose(w.ssm().toFloatArray(), s.ssm().toFloatArray(), "layer " + i + " ssm state, token by token");
            }
            assertEquals(13, pieces.length());
        }
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-4, what + " " + i);
    }

    @Test
    void theDecodingStateKeepsItsSizeWhateverTheLength() {
        MambaLM model = model();
        try (var noGrad = GradMode.disabled()) {
            DecodingState state = model.newState(1000);
            model.forward(ids(1, 3, 3), state);
            long afterPrompt = stateElements(state);
            for (int t = 0; t < 40; t++) model.forward(ids(1, 1, 10 + t), state);
            assertEquals(afterPrompt, stateElements(state), "after 40 more tokens");
            // per layer: the conv window (1, d_inner, d_conv − 1) and the scan state (1, d_inner, N)
            assertEquals(2L * 16 * (3 + 4), afterPrompt);
            assertEquals(43, state.length());
        }
    }

    private static long stateElements(DecodingState state) {
        long n = 0;
        for (int i = 0; i < state.layers(); i++) {
            MambaMixer.State s = (MambaMixer.State) state.layer(i);
            n += s.conv().numel() + s.ssm().numel();
        }
        return n;
    }

    @Test
    void greedyGenerationPicksTheFullForwardsArgmaxAndSamplingIsReproducibleBySeed() {
        MambaLM model = model();
        long[] out = model.generate(new long[] {3, 1, 4}, 12, Sampling.greedy(), new Generator(0));
        assertEquals(15, out.length);
        try (var noGrad = GradMode.disabled()) {
            for (int n = 3; n < out.length; n++) {
                Tensor logits = model.forward(Tensor.fromArray(Arrays.copyOf(out, n), 1, n));
                assertEquals(Sampler.argmax(logits.select(1, n - 1).toFloatArray()), out[n], "token " + n);
            }
        }
        Sampling s = Sampling.temperature(1.5).withTopK(5).withTopP(0.9);
        long[] prompt = {2, 7};
        assertArrayEquals(model.generate(prompt, 20, s, new Generator(8)), model.generate(prompt, 20, s, new Generator(8)));
        assertTrue(model.isTraining(), "generation restores training mode");
    }

    @Test
    void aLogAndTheNormsAndBiasesDoNotDecay() {
        var groups = model().parameterGroups(0.1);
        assertEquals(List.of("decay", "no_decay"), groups.stream().map(dev.symbiont.optim.ParamGroup::name).toList());
        var decay = groups.get(0).params().keySet();
        var noDecay = groups.get(1).params().keySet();
        assertTrue(decay.contains("backbone.layers.1.mixer.in_proj.weight") && decay.contains("backbone.embeddings.weight"), decay.toString());
        assertTrue(noDecay.containsAll(List.of("backbone.layers.0.mixer.A_log", "backbone.layers.0.mixer.D", "backbone.layers.0.mixer.dt_proj.bias",
                "backbone.layers.0.norm.weight", "backbone.norm_f.weight")), noDecay.toString());
        assertEquals(0.0, groups.get(1).weightDecay());
    }

    @Test
    void badIdsAndPromptsAreRefusedNamingTheModel() {
        MambaLM model = model();
        var e = assertThrows(IllegalArgumentException.class, () -> model.forward(Tensor.zeros(1, 4)));
        assertTrue(e.getMessage().startsWith("MambaLM: ids must be (batch, seq) integer token ids"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> model.generate(new long[] {1, 11}, 3, Sampling.greedy(), new Generator(0)));
        assertTrue(e.getMessage().contains("MambaLM.generate: prompt token 1 = 11 is outside [0, 11)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> model.loss(ids(1, 4, 0), ids(1, 5, 0)));
        assertTrue(e.getMessage().contains("MambaLM.loss"), e.getMessage());
    }

    /** A count of 2^31 - 16 tokens (Mamba has no context limit) starts at once: nothing is reserved for tokens not yet drawn. */
    @Test
    void generatingAHugeCountStreamsTokensWithoutReservingThem() {
        MambaLM model = model();
        long[] prompt = {3, 1, 4};
        Sampling s = Sampling.temperature(0.9);
        List<Long> streamed = new ArrayList<>();
        class Enough extends RuntimeException {}
        assertThrows(Enough.class, () -> model.generate(prompt, Integer.MAX_VALUE - 16, s, new Generator(8), id -> {
            streamed.add(id);
            if (streamed.size() == 20) throw new Enough();
        }));
        long[] whole = model.generate(prompt, 20, s, new Generator(8));
        assertEquals(Arrays.stream(whole).skip(3).boxed().toList(), streamed, "the streamed tokens are the array's");
        var e = assertThrows(IllegalArgumentException.class, () -> model.generate(prompt, Integer.MAX_VALUE - 4, s, new Generator(8)));
        assertTrue(e.getMessage().contains("a Java array holds"), e.getMessage());
    }
}
