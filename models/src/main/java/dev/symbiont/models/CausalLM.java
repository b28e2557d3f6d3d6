package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.optim.ParamGroup;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * A model that predicts each next token from the ones before it (Hugging Face's
 * {@code *ForCausalLM}): GPT ({@link dev.symbiont.models.gpt.Gpt}) and Mamba
 * ({@link dev.symbiont.models.mamba.MambaLM}). Training code needs only {@link #loss} and
 * {@link #auxiliaryLoss}; decoding needs {@link #forward(Tensor, DecodingState)} over a state
 * from {@link #newState}, which {@link #generate} runs one token at a time; {@link #metadata}
 * is what a checkpoint records to rebuild the model. A saved model, Symbiont's or a Hugging Face
 * directory, opens with {@link PretrainedModels#load}.
 */
public abstract class CausalLM extends Module {
    /** The longest array {@link #generate(long[], int, Sampling, Generator)} returns (the JVMs' array limit). */
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;
    /** Slots reserved for new tokens before any is drawn; more are added by doubling as they arrive. */
    private static final int FIRST_RESERVE = 4096;

    /** The {@link #metadata} key naming the model family ({@code gpt}, {@code mamba}); checkpoints without it are GPT's. */
    public static final String ARCHITECTURE = "architecture";

    /**
     * Logits of the next token at every position.
     *
     * @param ids (batch, seq) integer token ids
     * @return (batch, seq, vocab) float32
     */
    public final Tensor forward(Tensor ids) { return forward(ids, null); }

    /**
     * Logits for ids that continue the positions {@code state} holds (0, ... without one); the
     * state is extended in place.
     *
     * @param ids   (batch, seq) integer token ids
     * @param state null, or a decoding state from {@link #newState}
     * @return (batch, seq, vocab) float32
     */
    public abstract Tensor forward(Tensor ids, DecodingState state);

    /** An empty decoding state (one per block, of each block's own kind) for up to {@code maxLength} positions. */
    public abstract DecodingState newState(int maxLength);

    /** Token ids lie in [0, vocab). */
    public abstract int vocab();

    /** The longest sequence the model reads (its position table); {@link Integer#MAX_VALUE} for a recurrence. */
    public abstract int maxSeq();

    /** What a checkpoint's metadata records to rebuild this model: {@link #ARCHITECTURE} and the config's keys. */
    public abstract Map<String, String> metadata();

    /**
     * The weighted auxiliary losses of the last forward (an MoE router's load balancing), a
     * scalar with autograd history that a training step adds to {@link #loss}; null when the
     * model has none.
     */
    public Tensor auxiliaryLoss() { return null; }

    /**
     * The optimizer's parameter groups for weight decay {@code weightDecay}: by default
     * {@link ParamGroup#splitDecay} (matrices decay; biases and norm gains do not).
     */
    public List<ParamGroup> parameterGroups(double weightDecay) { return ParamGroup.splitDecay(this, weightDecay); }

    /**
     * Mean next-token cross-entropy.
     *
     * @param ids     (batch, seq) inputs
     * @param targets (batch, seq) the token expected after each input position, -100 where not scored
     * @return a scalar
     */
    public Tensor loss(Tensor ids, Tensor targets) {
        if (!Arrays.equals(ids.shape(), targets.shape())) {
            throw new IllegalArgumentException(name() + ".loss: ids " + Arrays.toString(ids.shape()) + " and targets "
                    + Arrays.toString(targets.shape()) + " must have the same shape");
        }
        return Losses.crossEntropy(forward(ids), targets);
    }

    /**
     * Continues {@code prompt} by {@code maxNewTokens} tokens: the prompt in one forward over a
     * fresh decoding state, then one forward of a single token per step, in eval mode without
     * gradients (the previous mode is restored). The context is not cropped: the window slides only
     * in {@link #generate(long[], GenerationConfig, Generator, LongConsumer)}. The result grows as
     * tokens are drawn: a large count costs time before it costs memory.
     *
     * @param prompt   token ids, at least one
     * @param sampling how each token is picked
     * @param g        the random source of the sampler (the same seed gives the same tokens)
     * @return the prompt followed by the new tokens
     * @throws IllegalArgumentException when the prompt is empty, holds an id outside the
     *         vocabulary, or prompt.length + maxNewTokens exceeds maxSeq or a Java array
     */
    public long[] generate(long[] prompt, int maxNewTokens, Sampling sampling, Generator g) {
        return generate(prompt, maxNewTokens, sampling, g, Set.of());
    }

    /**
     * As {@link #generate(long[], int, Sampling, Generator)}, ending early with the first new
     * token in {@code stopIds} (Hugging Face's {@code eos_token_id}), which the result keeps.
     *
     * @param stopIds the ids that end generation; empty for none
     * @return the prompt followed by the new tokens, the stop token last when one was drawn
     */
    public long[] generate(long[] prompt, int maxNewTokens, Sampling sampling, Generator g, Set<Long> stopIds) {
        if ((long) prompt.length + maxNewTokens > MAX_ARRAY) {
            throw new IllegalArgumentException(name() + ".generate: prompt of " + prompt.length + " tokens + " + maxNewTokens
                    + " new tokens exceeds the " + MAX_ARRAY + " a Java array holds; take the tokens as they come with the LongConsumer overload");
        }
        var out = new Object() {
            long[] ids = Arrays.copyOf(prompt, prompt.length + Math.clamp(maxNewTokens, 0, FIRST_RESERVE));
            int size = prompt.length;
        };
        generate(prompt, maxNewTokens, sampling, g, stopIds, id -> {
            if (out.size == out.ids.length) out.ids = Arrays.copyOf(out.ids, (int) Math.min(MAX_ARRAY, 2L * out.ids.length));
            out.ids[out.size++] = id;
        });
        return out.size == out.ids.length ? out.ids : Arrays.copyOf(out.ids, out.size);
    }

    /**
     * As {@link #generate(long[], int, Sampling, Generator)}, handing each new token to
     * {@code onToken} as soon as it is drawn and keeping none: memory is the decoding state's,
     * whatever the count (a recurrent model's is constant).
     *
     * @param onToken receives the {@code maxNewTokens} new token ids in order
     */
    public void generate(long[] prompt, int maxNewTokens, Sampling sampling, Generator g, LongConsumer onToken) {
        generate(prompt, maxNewTokens, sampling, g, Set.of(), onToken);
    }

    /**
     * As {@link #generate(long[], int, Sampling, Generator, LongConsumer)}, ending early after the
     * first new token in {@code stopIds}, which is handed on like the others.
     *
     * @param stopIds the ids that end generation (Hugging Face's {@code eos_token_id}); empty for none
     * @return the number of tokens handed to {@code onToken}
     */
    public int generate(long[] prompt, int maxNewTokens, Sampling sampling, Generator g, Set<Long> stopIds, LongConsumer onToken) {
        if ((long) prompt.length + maxNewTokens > maxSeq()) {
            throw new IllegalArgumentException(name() + ".generate: prompt of " + prompt.length + " tokens + " + maxNewTokens
                    + " new tokens exceeds maxSeq " + maxSeq() + "; shorten the prompt or generate fewer tokens");
        }
        return GenerationLoop.run(this, prompt, maxNewTokens, sampling, g, stopIds, onToken).newTokens();
    }

    /**
     * Continues {@code prompt} as {@code config} says, handing each new token to {@code onToken}
     * as soon as it is picked: {@link GenerationConfig#newTokens} tokens at most, ending after the
     * first of its end-of-sequence ids, each picked by its {@link Sampling} (repetition penalty,
     * temperature, top-k, top-p; greedy when the temperature is 0) with randomness from {@code g}
     * only, so a seed gives the same tokens. The prompt goes through one forward, each later token
     * through one decoding step (KV cache, or Mamba's recurrent state). Past the context
     * ({@link #maxSeq}) the window slides: the last half context of text becomes the prompt of a
     * fresh state, and a prompt longer than the context starts from its last half context. Memory is
     * the decoding state's whatever the count. Runs in eval mode without gradients; the previous
     * mode is restored.
     *
     * @param prompt  token ids, at least one
     * @param onToken receives the new token ids in order, a stop id last when one was picked
     * @return the counts and the time the prompt and the decoding steps took
     * @throws IllegalArgumentException when the prompt is empty or holds an id outside the
     *         vocabulary, or a model with a context of one token would have to slide
     */
    public GenerationStats generate(long[] prompt, GenerationConfig config, Generator g, LongConsumer onToken) {
        return GenerationLoop.run(this, prompt, config.newTokens(prompt.length), config.sampling(), g, config.stopIds(), onToken);
    }

    /** The model's name in error messages. */
    protected String name() { return getClass().getSimpleName(); }

    /**
     * Checks that {@code ids} are (batch, seq) integer token ids.
     *
     * @throws IllegalArgumentException naming the model, the dtype and the shape otherwise
     */
    protected final void checkIds(Tensor ids) {
        if (ids.dim() != 2 || !ids.dtype().isInteger()) {
            throw new IllegalArgumentException(name() + ": ids must be (batch, seq) integer token ids, got " + ids.dtype() + " "
                    + Arrays.toString(ids.shape()));
        }
    }
}
