package dev.symbiont.models;

import dev.symbiont.models.gpt.Sampling;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A model's defaults for {@link CausalLM#generate}, as Hugging Face's {@code generation_config.json}
 * states them: when to stop and how to pick tokens.
 *
 * @param eosTokenIds   the ids that end generation (HF's {@code eos_token_id}, one id or a list); empty for none
 * @param bosTokenId    the id a prompt starts with, when the model has one
 * @param maxLength     the longest prompt + continuation (HF's {@code max_length}, 20 unless given)
 * @param maxNewTokens  new tokens per call, when given (HF's {@code max_new_tokens}, which wins over maxLength)
 * @param sampling      greedy unless {@code do_sample}; then {@code temperature}, {@code top_k}, {@code top_p};
 *                      {@code repetition_penalty} either way
 */
public record GenerationConfig(List<Long> eosTokenIds, OptionalLong bosTokenId, int maxLength, OptionalInt maxNewTokens, Sampling sampling) {
    /** Hugging Face's {@code max_length} when a config gives none. */
    public static final int DEFAULT_MAX_LENGTH = 20;
    /** No stop ids, 20 tokens at most, greedy: Hugging Face's defaults. */
    public static final GenerationConfig DEFAULT = new GenerationConfig(List.of(), OptionalLong.empty(), DEFAULT_MAX_LENGTH,
            OptionalInt.empty(), Sampling.greedy());

    public GenerationConfig {
        eosTokenIds = List.copyOf(eosTokenIds);
        for (long id : eosTokenIds) if (id < 0) throw new IllegalArgumentException("GenerationConfig: eos token id " + id + " is negative");
        if (maxLength <= 0) throw new IllegalArgumentException("GenerationConfig: maxLength must be positive, got " + maxLength);
        if (maxNewTokens.isPresent() && maxNewTokens.getAsInt() < 0) {
            throw new IllegalArgumentException("GenerationConfig: maxNewTokens must be >= 0, got " + maxNewTokens.getAsInt());
        }
        if (sampling == null) throw new IllegalArgumentException("GenerationConfig: sampling must be given");
    }

    /** The stop ids as a set, for {@link CausalLM#generate(long[], int, Sampling, dev.symbiont.core.Generator, Set)}. */
    public Set<Long> stopIds() { return new LinkedHashSet<>(eosTokenIds); }

    /** New tokens after a prompt of {@code promptLength}: maxNewTokens when given, else what maxLength leaves (at least 0). */
    public int newTokens(int promptLength) {
        return maxNewTokens.isPresent() ? maxNewTokens.getAsInt() : Math.max(0, maxLength - promptLength);
    }

    public GenerationConfig withSampling(Sampling s) { return new GenerationConfig(eosTokenIds, bosTokenId, maxLength, maxNewTokens, s); }

    public GenerationConfig withMaxNewTokens(int n) {
        return new GenerationConfig(eosTokenIds, bosTokenId, maxLength, OptionalInt.of(n), sampling);
    }

    /** These settings with {@code ids} as the end-of-sequence ids (empty: generation runs its full length). */
    public GenerationConfig withEosTokenIds(List<Long> ids) {
        return new GenerationConfig(ids, bosTokenId, maxLength, maxNewTokens, sampling);
    }
}
