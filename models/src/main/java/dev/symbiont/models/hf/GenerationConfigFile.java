package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.symbiont.io.JsonFiles;
import dev.symbiont.models.GenerationConfig;
import dev.symbiont.models.gpt.Sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A model's {@code generation_config.json} as a {@link GenerationConfig}: {@code eos_token_id}
 * (one id or a list), {@code bos_token_id}, {@code max_length}, {@code max_new_tokens},
 * {@code do_sample} with {@code temperature}, {@code top_k} and {@code top_p} (transformers'
 * defaults 1.0, 50 and 1.0), and {@code repetition_penalty} (1.0), which applies in greedy
 * decoding too. Without the file, the ids come from {@code config.json}, as transformers takes them.
 */
final class GenerationConfigFile {
    static final String NAME = "generation_config.json";
    static final int MAX_BYTES = 1 << 20;

    private GenerationConfigFile() {}

    static GenerationConfig read(Path dir, HfConfig config) throws IOException {
        Path file = dir.resolve(NAME);
        HfConfig c = Files.isRegularFile(file) ? new HfConfig(file, JsonFiles.readObject(file, MAX_BYTES)) : config;
        boolean sample = c != config && c.bool("do_sample", false);
        Sampling sampling = sample
                ? HfConfigChecks.valid(c, () -> new Sampling(c.real("temperature", 1.0), nonNegative(c, "top_k", 50), c.real("top_p", 1.0)))
                : Sampling.greedy();
        if (c != config && c.has("repetition_penalty")) {
            double penalty = c.real("repetition_penalty", 1.0);
            if (!(penalty > 0)) throw c.invalid("repetition_penalty", c.node("repetition_penalty"), "a number > 0");
            sampling = sampling.withRepetitionPenalty(penalty);
        }
        OptionalInt maxNew = c.has("max_new_tokens") ? OptionalInt.of(nonNegative(c, "max_new_tokens", 0)) : OptionalInt.empty();
        OptionalLong bos = c.has("bos_token_id") ? OptionalLong.of(tokenId(c, "bos_token_id", c.node("bos_token_id"))) : OptionalLong.empty();
        return new GenerationConfig(eosIds(c), bos, c == config ? GenerationConfig.DEFAULT_MAX_LENGTH
                : c.positive("max_length", GenerationConfig.DEFAULT_MAX_LENGTH), maxNew, sampling);
    }

    /** {@code eos_token_id}: absent, one id, or a list of ids. */
    private static List<Long> eosIds(HfConfig c) {
        JsonNode n = c.node("eos_token_id");
        List<Long> ids = new ArrayList<>();
        if (n == null) return ids;
        if (n.isArray()) {
            for (JsonNode id : n) ids.add(tokenId(c, "eos_token_id", id));
        } else {
            ids.add(tokenId(c, "eos_token_id", n));
        }
        return ids;
    }

    private static long tokenId(HfConfig c, String field, JsonNode id) {
        if (id == null || !id.canConvertToLong() || !id.isIntegralNumber() || id.longValue() < 0) {
            throw c.invalid(field, id, "a token id (an integer >= 0) or a list of them");
        }
        return id.longValue();
    }

    private static int nonNegative(HfConfig c, String field, int absent) {
        JsonNode n = c.node(field);
        if (n == null) return absent;
        if (!n.canConvertToInt() || !n.isIntegralNumber() || n.intValue() < 0) throw c.invalid(field, n, "an integer >= 0");
        return n.intValue();
    }
}
