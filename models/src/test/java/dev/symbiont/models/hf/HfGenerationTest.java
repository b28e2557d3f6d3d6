package dev.symbiont.models.hf;

import dev.symbiont.core.Generator;
import dev.symbiont.models.GenerationConfig;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.gpt.Sampling;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.*;

/** generation_config.json's stop ids and sampling drive generation over the KV cache. */
class HfGenerationTest {
    @Test
    void generation_stops_after_the_first_eos_id_of_generation_config(@TempDir Path dir) throws Exception {
        HfCheckpoint c = HfCheckpoint.llama(HfLogitsTest.llamaConfig(), 31);
        long[] prompt = {3, 1, 4, 1};
        long[] free = PretrainedModels.load(c.write(dir.resolve("free"), 1)).model().generate(prompt, 8, Sampling.greedy(), new Generator(0));
        long stop = free[prompt.length + 2];                          // the third new token
        int first = prompt.length;
        while (free[first] != stop) first++;                          // it may come earlier too
        c.generation.put("eos_token_id", List.of(28, stop));
        c.generation.put("max_new_tokens", 8);
        PretrainedModel p = PretrainedModels.load(c.write(dir.resolve("eos"), 1));
        assertEquals(List.of(28L, stop), p.generation().eosTokenIds());
        long[] stopped = p.generate(prompt, new Generator(0));
        assertArrayEquals(Arrays.copyOf(free, first + 1), stopped, "greedy, up to and with the stop id");
    }

    @Test
    void the_sampling_and_lengths_of_generation_config_are_read_with_transformers_defaults(@TempDir Path dir) throws Exception {
        HfCheckpoint c = HfCheckpoint.llama(HfLogitsTest.llamaConfig(), 32);
        c.generation.put("bos_token_id", 1);
        c.generation.put("eos_token_id", 2);
        c.generation.put("do_sample", true);
        c.generation.put("temperature", 0.6);
        c.generation.put("top_p", 0.9);
        c.generation.put("max_length", 12);
        c.generation.put("repetition_penalty", 1.3);
        GenerationConfig g = PretrainedModels.load(c.write(dir.resolve("sample"), 1)).generation();
        assertEquals(new GenerationConfig(List.of(2L), OptionalLong.of(1), 12, OptionalInt.empty(), new Sampling(0.6, 50, 0.9, 1.3)), g);
        c.generation.put("do_sample", false);
        assertEquals(Sampling.greedy().withRepetitionPenalty(1.3), PretrainedModels.load(c.write(dir.resolve("greedy"), 1)).generation().sampling(),
                "greedy decoding keeps the repetition penalty, as transformers applies it to greedy search too");
        c.generation.put("repetition_penalty", 0);
        var bad = assertThrows(IllegalArgumentException.class, () -> PretrainedModels.load(c.write(dir.resolve("zero"), 1)));
        assertTrue(bad.getMessage().contains("generation_config.json: field 'repetition_penalty' = 0 is not a number > 0"), bad.getMessage());
        assertEquals(8, g.newTokens(4), "max_length counts the prompt");
        c.generation.clear();                                         // no file: the ids of config.json, greedy
        GenerationConfig fromConfig = PretrainedModels.load(c.write(dir.resolve("plain"), 1)).generation();
        assertEquals(List.of(2L), fromConfig.eosTokenIds());
        assertTrue(fromConfig.sampling().isGreedy());
        assertEquals(GenerationConfig.DEFAULT_MAX_LENGTH, fromConfig.maxLength());
        c.generation.put("eos_token_id", List.of(2, -1));
        var e = assertThrows(IllegalArgumentException.class, () -> PretrainedModels.load(c.write(dir.resolve("bad"), 1)));
        assertTrue(e.getMessage().contains("generation_config.json: field 'eos_token_id' = -1 is not a token id"), e.getMessage());
    }
}
