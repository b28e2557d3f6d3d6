package dev.symbiont.bench.jlama;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.gpt.Sampling;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Symbiont and jlama read the same tiny random-weight Hugging Face directory and continue the same
 * prompt ids greedily: the new tokens agree one for one, and the logits of the first step (the
 * prompt's last position) agree within 1e-4·(1 + |logit|) for float32 weights, both engines
 * computing in float32 with their own summation orders. The continuation must hold many distinct
 * ids, so agreement is not that of two models stuck on one token.
 */
class JlamaAgreementTest {
    private static final long[] PROMPT = {5, 17, 42, 9, 123, 77, 3, 250, 61, 18, 99, 7};
    private static final int NEW_TOKENS = 40;
    private static final double TOLERANCE = 1e-4;

    @TempDir Path dir;

    @Test
    void llama_with_grouped_query_attention_and_rope_continues_as_jlama_does() throws IOException {
        assertAgrees(PeerModels.llama(300, 64, 2, 4, 2, 160, 128), 11);
    }

    @Test
    void llama_with_one_key_value_head_and_wider_heads_continues_as_jlama_does() throws IOException {
        assertAgrees(PeerModels.llama(260, 128, 3, 4, 1, 256, 128), 12);
    }

    @Test
    void gpt2_continues_as_jlama_does() throws IOException {
        assertAgrees(PeerModels.gpt2(301, 64, 2, 4, 128), 13);
    }

    private void assertAgrees(Map<String, Object> config, long seed) throws IOException {
        Path model = PeerModels.write(dir.resolve("model"), config, DType.FLOAT32, seed);
        CausalLM symbiont = PretrainedModels.load(model).model();
        long[] ours = symbiont.generate(PROMPT, NEW_TOKENS, Sampling.greedy(), new Generator(0));
        float[] ourLogits = lastLogits(symbiont, PROMPT);
        JlamaPeer.Generation theirs;
        try (JlamaPeer jlama = new JlamaPeer(model)) {
            theirs = jlama.greedy(PROMPT, NEW_TOKENS);
        }
        assertEquals(ourLogits.length, theirs.firstLogits().length, "vocabulary");
        for (int i = 0; i < ourLogits.length; i++) {
            assertEquals(theirs.firstLogits()[i], ourLogits[i], TOLERANCE * (1 + Math.abs(theirs.firstLogits()[i])), "first step's logit " + i);
        }
        assertArrayEquals(theirs.ids(), ours, "greedy continuation of " + config.get("model_type"));
        long distinct = Arrays.stream(ours, PROMPT.length, ours.length).distinct().count();
        assertTrue(distinct >= NEW_TOKENS / 4, "the continuation holds " + distinct + " distinct ids: " + Arrays.toString(ours));
    }

    /** The logits (vocab) of the last position of {@code ids}, from one forward without a cache. */
    static float[] lastLogits(CausalLM lm, long[] ids) {
        try (var noGrad = GradMode.disabled()) {
            Tensor logits = lm.forward(Tensor.fromArray(ids, 1, ids.length));            // (1, seq, vocab)
            return logits.select(1, ids.length - 1).toFloatArray();
        }
    }
}
