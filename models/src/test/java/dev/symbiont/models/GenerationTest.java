package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.RepetitionPenalty;
import dev.symbiont.models.gpt.Sampler;
import dev.symbiont.models.gpt.Sampling;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.*;

/** CausalLM.generate with a GenerationConfig: streaming, stop ids, seeds, the repetition penalty, a sliding window, its statistics. */
class GenerationTest {
    private static final int VOCAB = 23, CONTEXT = 12;
    private static final long[] PROMPT = {3, 1, 4};

    private static Gpt model(long seed) { return new Gpt(GptConfig.of(VOCAB, 16, 2, 4, CONTEXT), new Generator(seed)); }

    private static GenerationConfig config(int newTokens, Sampling s, Long... eos) {
        return new GenerationConfig(List.of(eos), OptionalLong.empty(), 20, OptionalInt.of(newTokens), s);
    }

    private static List<Long> stream(CausalLM m, long[] prompt, GenerationConfig c, long seed) {
        List<Long> out = new ArrayList<>();
        m.generate(prompt, c, new Generator(seed), out::add);
        return out;
    }

    private static long[] concat(long[] prompt, List<Long> tokens) {
        long[] all = Arrays.copyOf(prompt, prompt.length + tokens.size());
        for (int i = 0; i < tokens.size(); i++) all[prompt.length + i] = tokens.get(i);
        return all;
    }

    /** The last position's logits of a full forward over {@code text}. */
    private static float[] lastLogits(CausalLM m, long[] text) {
        Tensor logits = m.forward(Tensor.fromArray(text, 1, text.length));
        return logits.select(1, text.length - 1).toFloatArray();
    }

    @Test
    void the_callback_sees_every_token_in_order_and_the_statistics_count_them() {
        Gpt m = model(1);
        Sampling s = Sampling.temperature(1.2).withTopK(10).withTopP(0.95);
        List<Long> streamed = new ArrayList<>();
        GenerationStats stats = m.generate(PROMPT, config(7, s), new Generator(5), streamed::add);
        long[] array = m.generate(PROMPT, 7, s, new Generator(5));
        assertArrayEquals(array, concat(PROMPT, streamed), "the same tokens in the same order as the array overload");
        assertEquals(3, stats.promptTokens());
        assertEquals(7, stats.newTokens());
        assertTrue(stats.promptSeconds() >= 0 && stats.decodeSeconds() >= 0, stats.toString());
        assertTrue(m.isTraining(), "the training mode is restored");
    }

    @Test
    void generation_ends_after_the_first_of_several_eos_ids_which_it_keeps() {
        Gpt m = model(2);
        List<Long> free = stream(m, PROMPT, config(8, Sampling.greedy()), 0);
        long late = free.get(4), early = free.get(2);
        int first = Math.min(free.indexOf(late), free.indexOf(early));
        List<Long> stopped = new ArrayList<>();
        GenerationStats stats = m.generate(PROMPT, config(8, Sampling.greedy(), late, early), new Generator(0), stopped::add);
        assertEquals(free.subList(0, first + 1), stopped, "up to and with the first stop id, whichever of the two");
        assertEquals(first + 1, stats.newTokens());
        assertEquals(free, stream(m, PROMPT, config(8, Sampling.greedy(), (long) VOCAB + 5), 0), "an id never drawn stops nothing");
    }

    @Test
    void the_same_seed_gives_the_same_tokens_and_other_seeds_others() {
        Gpt m = model(3);
        GenerationConfig c = config(9, Sampling.temperature(1.5).withRepetitionPenalty(1.2));
        List<Long> a = stream(m, PROMPT, c, 42);
        assertEquals(a, stream(m, PROMPT, c, 42));
        boolean differs = false;
        for (long seed = 43; seed < 48 && !differs; seed++) differs = !a.equals(stream(m, PROMPT, c, seed));
        assertTrue(differs, "other seeds draw other continuations");
    }

    @Test
    void greedy_decoding_with_a_repetition_penalty_picks_the_argmax_of_the_penalised_logits_of_the_whole_text() {
        Gpt m = model(4);
        Sampling s = Sampling.greedy().withRepetitionPenalty(2.0);
        List<Long> got = stream(m, PROMPT, config(8, s), 0);
        m.eval();
        long[] text = PROMPT.clone();
        for (int i = 0; i < 8; i++) {
            float[] logits = lastLogits(m, text);
            BitSet seen = new BitSet();
            for (long id : text) seen.set((int) id);
            RepetitionPenalty.apply(logits, 2.0, seen);
            assertEquals(Sampler.argmax(logits), got.get(i), "token " + i);
            text = concat(text, List.of(got.get(i)));
        }
        assertNotEquals(stream(m, PROMPT, config(8, Sampling.greedy()), 0), got, "the penalty changes this continuation");
    }

    @Test
    void a_prompt_longer_than_the_context_and_a_continuation_past_it_slide_a_half_context_window() {
        Gpt m = model(5);
        long[] prompt = new long[20];
        for (int i = 0; i < prompt.length; i++) prompt[i] = (7L * i + 2) % VOCAB;
        List<Long> got = new ArrayList<>();
        GenerationStats stats = m.generate(prompt, config(15, Sampling.greedy()), new Generator(0), got::add);
        assertEquals(15, got.size());
        assertEquals(20, stats.promptTokens());
        m.eval();
        long[] text = prompt.clone();
        for (int i = 0; i < got.size(); i++) {
            // The window starts as the last half context and grows to a full one, then slides back to the last half.
            int visible = CONTEXT / 2 + i % (CONTEXT / 2);
            long[] window = Arrays.copyOfRange(text, text.length - visible, text.length);
            assertEquals(Sampler.argmax(lastLogits(m, window)), got.get(i), "token " + i + " sees the last " + visible + " tokens");
            text = concat(text, List.of(got.get(i)));
        }
        var e = assertThrows(IllegalArgumentException.class, () -> m.generate(prompt, 2, Sampling.greedy(), new Generator(0)));
        assertTrue(e.getMessage().contains("exceeds maxSeq 12"), "the overloads without a config keep refusing: " + e.getMessage());
    }

    @Test
    void bad_prompts_are_refused_naming_the_token() {
        Gpt m = model(6);
        var e = assertThrows(IllegalArgumentException.class, () -> m.generate(new long[0], config(2, Sampling.greedy()), new Generator(0), id -> { }));
        assertTrue(e.getMessage().contains("the prompt is empty"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> m.generate(new long[] {1, VOCAB}, config(2, Sampling.greedy()), new Generator(0), id -> { }));
        assertTrue(e.getMessage().contains("prompt token 1 = 23 is outside [0, 23)"), e.getMessage());
    }

    @Test
    void decode_speed_counts_the_tokens_after_the_first() {
        GenerationStats s = new GenerationStats(12, 11, 0.5, 2.0);
        assertEquals(5.0, s.decodeTokensPerSecond(), 1e-12, "10 decoding steps in 2 s");
        assertEquals(24.0, s.promptTokensPerSecond(), 1e-12);
        assertEquals("prompt 12 tokens in 0.500 s (24.0 tokens/s); 11 new tokens, decoding 5.0 tokens/s", s.summary());
        assertEquals(0, new GenerationStats(3, 1, 0.1, 0).decodeTokensPerSecond(), "one token: no decoding step");
        assertThrows(IllegalArgumentException.class, () -> new GenerationStats(3, -1, 0, 0));
    }
}
