package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.models.gpt.RepetitionPenalty;
import dev.symbiont.models.gpt.Sampler;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.nn.block.DecodingState;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * The decoding loop behind every {@link CausalLM#generate}: the window's tokens in one forward
 * over a fresh decoding state (prefill), then one forward of a single token per step (a KV cache
 * for attention, the recurrent state for Mamba), each next token picked from the last position's
 * logits by the repetition penalty and the {@link Sampler}. Where the model's context
 * ({@link CausalLM#maxSeq}) would overflow, the window slides: the last half context of text
 * becomes the prompt of a fresh state. A prompt longer than the context starts from its last half
 * context. The repetition penalty counts every token of the text, the prompt's all, whatever the window.
 */
final class GenerationLoop {
    private GenerationLoop() {}

    /**
     * Generates up to {@code maxNewTokens} tokens after {@code prompt}, ending after the first in
     * {@code stopIds}; each goes to {@code onToken} as soon as it is picked. Runs in eval mode
     * without gradients; the previous mode is restored.
     *
     * @throws IllegalArgumentException for an empty prompt, an id outside the vocabulary, a negative
     *         count, or a context of one token that would have to slide
     */
    static GenerationStats run(CausalLM lm, long[] prompt, int maxNewTokens, Sampling sampling, Generator g, Set<Long> stopIds,
                               LongConsumer onToken) {
        String op = lm.name() + ".generate";
        check(op, lm, prompt, maxNewTokens);
        int context = lm.maxSeq();
        if (context < 2 && (long) prompt.length + maxNewTokens > context) {
            throw new IllegalArgumentException(op + ": the model's context of " + context + " token cannot slide: generate at most "
                    + Math.max(0, context - prompt.length) + " tokens after this prompt");
        }
        BitSet seen = new BitSet();
        if (sampling.penalisesRepeats()) for (long id : prompt) seen.set((int) id);
        Clock clock = new Clock(prompt.length);
        if (maxNewTokens == 0) return clock.stats();
        boolean wasTraining = lm.isTraining();
        lm.eval();
        try (var noGrad = GradMode.disabled(); var onModel = Backends.use(lm.parameters().getFirst().value().backend())) {
            long[] window = prompt.length < context ? prompt : Arrays.copyOfRange(prompt, prompt.length - context / 2, prompt.length);
            for (int left = maxNewTokens; left > 0; ) {
                int n = Math.min(left, context - window.length);
                // Only a pass that another follows keeps its text (at most a context) for the next window.
                long[] text = n == left ? null : Arrays.copyOf(window, window.length + n);
                DecodingState state = lm.newState(window.length + n);
                Tensor input = Tensor.fromArray(window, 1, window.length);
                for (int i = 0; i < n; i++) {
                    long started = System.nanoTime();
                    Tensor logits = lm.forward(input, state);                              // (1, seq, vocab)
                    float[] last = logits.select(1, logits.size(1) - 1).toFloatArray();    // (vocab)
                    if (sampling.penalisesRepeats()) RepetitionPenalty.apply(last, sampling.repetitionPenalty(), seen);
                    long next = Sampler.sample(last, sampling, g);
                    clock.tick(System.nanoTime() - started);
                    onToken.accept(next);
                    if (stopIds.contains(next)) return clock.stats();
                    if (sampling.penalisesRepeats()) seen.set((int) next);
                    if (text != null) text[window.length + i] = next;
                    input = Tensor.fromArray(new long[] {next}, 1, 1);
                }
                left -= n;
                if (text != null) window = Arrays.copyOfRange(text, text.length - context / 2, text.length);
            }
            return clock.stats();
        } finally {
            if (wasTraining) lm.train();
        }
    }

    private static void check(String op, CausalLM lm, long[] prompt, int maxNewTokens) {
        if (prompt.length == 0) throw new IllegalArgumentException(op + ": the prompt is empty");
        if (maxNewTokens < 0) throw new IllegalArgumentException(op + ": maxNewTokens must be >= 0, got " + maxNewTokens);
        for (int i = 0; i < prompt.length; i++) {
            if (prompt[i] < 0 || prompt[i] >= lm.vocab()) {
                throw new IllegalArgumentException(op + ": prompt token " + i + " = " + prompt[i] + " is outside [0, " + lm.vocab() + ")");
            }
        }
    }

    /** The model's time per token: the first token's is the prompt's, the others' decoding. */
    private static final class Clock {
        private final int promptTokens;
        private int tokens;
        private long promptNanos, decodeNanos;

        Clock(int promptTokens) { this.promptTokens = promptTokens; }

        void tick(long nanos) {
            if (tokens++ == 0) promptNanos = nanos;
            else decodeNanos += nanos;
        }

        GenerationStats stats() { return new GenerationStats(promptTokens, tokens, promptNanos / 1e9, decodeNanos / 1e9); }
    }
}
