package dev.symbiont.models.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.mamba.Mamba2Mixer;
import dev.symbiont.nn.mamba.SsdImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A MambaLM whose mixers are Mamba-2's: Hugging Face's Mamba2ForCausalLM keys, its metadata, and
 * recurrent decoding equal to the chunked full forward.
 */
class Mamba2LMTest {
    /** vocab 11, d_model 8, 2 layers; 4 heads of 4, N 4 in 2 groups, chunk 3 (so 13 positions are 5 chunks, the last short). */
    private static final MambaLMConfig CONFIG = MambaLMConfig.mamba2(11, new Mamba2Config(8, 4, 4, 4, 2, 4, 3), 2);

    private static MambaLM model() { return new MambaLM(CONFIG, new Generator(5), 0.5); }

    private static Tensor ids(int batch, int seq, long seed) { return RandomIds.of(CONFIG.vocab(), batch, seq, seed); }

    @Test
    void stateDictHasHuggingFaceMamba2ForCausalLMKeysAndShapes() {
        Map<String, List<Integer>> expected = new LinkedHashMap<>();
        expected.put("backbone.embeddings.weight", List.of(11, 8));
        for (int i = 0; i < 2; i++) {
            String p = "backbone.layers." + i + ".";
            expected.put(p + "norm.weight", List.of(8));
            expected.put(p + "mixer.in_proj.weight", List.of(52, 8));
            expected.put(p + "mixer.conv1d.weight", List.of(32, 1, 4));
            expected.put(p + "mixer.conv1d.bias", List.of(32));
            expected.put(p + "mixer.dt_bias", List.of(4));
            expected.put(p + "mixer.A_log", List.of(4));
            expected.put(p + "mixer.D", List.of(4));
            expected.put(p + "mixer.norm.weight", List.of(16));
            expected.put(p + "mixer.out_proj.weight", List.of(8, 16));
        }
        expected.put("backbone.norm_f.weight", List.of(8));
        expected.put("lm_head.weight", List.of(11, 8));
        Map<String, List<Integer>> actual = new LinkedHashMap<>();
        model().stateDict().forEach((k, t) -> actual.put(k, Arrays.stream(t.shape()).boxed().toList()));
        assertEquals(expected, actual);
    }

    @Test
    void metadataNamesMamba2AndRebuildsTheModel() {
        MambaLM model = model();
        Map<String, String> meta = model.metadata();
        assertEquals("mamba2", meta.get(CausalLM.ARCHITECTURE));
        assertEquals(List.of("4", "4", "2", "3", "2"), List.of(meta.get("num_heads"), meta.get("head_dim"), meta.get("n_groups"),
                meta.get("chunk_size"), meta.get("expand")));
        assertEquals(CONFIG, MambaLMConfig.fromMap(meta));
        MambaLM rebuilt = new MambaLM(MambaLMConfig.fromMap(meta), new Generator(99));
        rebuilt.loadStateDict(model.stateDict(), true);
        Tensor x = ids(2, 7, 1);
        assertArrayEquals(model.forward(x).toFloatArray(), rebuilt.forward(x).toFloatArray());
    }

    @ParameterizedTest(name = "SSD as {0}")
    @EnumSource(value = SsdImpl.class, names = {"SCAN", "CHUNKED"})
    void decodingInPiecesAndTokenByTokenGivesTheFullForwardsLogitsAndStates(SsdImpl impl) {
        MambaLM model = model();
        for (var m : model.modules()) if (m instanceof Mamba2Mixer mixer) mixer.ssdImpl(impl);
        Tensor x = ids(2, 13, 4);
        try (var noGrad = GradMode.disabled()) {
            DecodingState whole = model.newState(13), pieces = model.newState(13), tokens = model.newState(13);
            float[] full = model.forward(x).toFloatArray();
            assertClose(full, model.forward(x, whole).toFloatArray(), "the whole prompt through a state");
            // the second piece spans chunks and is longer than the conv window: it reads the saved inputs and h
            float[] two = Tensor.cat(List.of(model.forward(x.narrow(1, 0, 5), pieces), model.forward(x.narrow(1, 5, 8), pieces)), 1)
                    .toFloatArray();
            List<Tensor> steps = new ArrayList<>(List.of(model.forward(x.narrow(1, 0, 2), tokens)));
            for (int t = 2; t < 13; t++) steps.add(model.forward(x.narrow(1, t, 1), tokens));       // the recurrence, one step each
            assertClose(full, two, "two pieces' logits");
            assertClose(full, Tensor.cat(steps, 1).toFloatArray(), "token-by-token logits");
            for (int i = 0; i < whole.layers(); i++) {
                Mamba2Mixer.State w = assertInstanceOf(Mamba2Mixer.State.class, whole.layer(i));
                for (DecodingState other : List.of(pieces, tokens)) {
                    Mamba2Mixer.State s = (Mamba2Mixer.State) other.layer(i);
                    assertClose(w.conv().toFloatArray(), s.conv().toFloatArray(), "layer " + i + " conv state");
                    assertClose(w.ssm().toFloatArray(), s.ssm().toFloatArray(), "layer " + i + " ssm state");
                }
                assertArrayEquals(new int[] {2, 32, 3}, w.conv().shape());
                assertArrayEquals(new int[] {2, 4, 4, 4}, w.ssm().shape(), "(batch, heads, P, N) whatever the length");
            }
            assertEquals(13, tokens.length());
        }
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-4, what + " " + i);
    }
}
