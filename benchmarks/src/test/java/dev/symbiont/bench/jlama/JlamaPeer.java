package dev.symbiont.bench.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.KvBufferCache;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * A model directory loaded by jlama, decoded greedily from token ids the way jlama's own
 * {@code AbstractModel.generate} does it: the prompt in one batched forward into a fresh KV cache,
 * then one forward per token, each next token the argmax of the last position's logits (jlama's
 * {@code sample} at temperature 0). Weights stay in the file's dtype; activations are float32.
 */
final class JlamaPeer implements AutoCloseable {
    private final AbstractModel model;
    private final KvBufferCache caches;

    /** Loads {@code dir} (config.json's {@code model_type} picks jlama's model class). */
    JlamaPeer(Path dir) {
        model = ModelSupport.loadModel(dir.toFile(), DType.F32, DType.F32);
        caches = new KvBufferCache(model);
    }

    /**
     * One greedy generation.
     *
     * @param ids           the prompt followed by the new tokens
     * @param firstLogits   (vocab) the raw logits of the prompt's last position
     * @param promptSeconds the prompt's forward and the first new token's pick
     * @param decodeSeconds the steps that gave the other new tokens
     */
    record Generation(long[] ids, float[] firstLogits, double promptSeconds, double decodeSeconds) {}

    /** The prompt followed by {@code newTokens} (at least 1) greedy tokens. */
    Generation greedy(long[] prompt, int newTokens) {
        int vocab = model.getConfig().vocabularySize;
        long[] out = Arrays.copyOf(prompt, prompt.length + newTokens);
        int[] ids = Arrays.stream(prompt).mapToInt(Math::toIntExact).toArray();
        float[] firstLogits = new float[vocab];
        try (KvBufferCache.KvBuffer kv = caches.getEphemeralKvBuffer(); AbstractTensor logits = model.makeDenseTensor(vocab)) {
            long started = System.nanoTime();
            AbstractTensor last = model.batchForward(ids, 0, kv);
            int next = model.sample(last.slice(last.shape().first() - 1), 0f, 0f, logits);
            last.close();
            long prompted = System.nanoTime();
            for (int i = 0; i < vocab; i++) firstLogits[i] = logits.get(0, i);
            long decoding = System.nanoTime();
            out[prompt.length] = next;
            for (int i = 1; i < newTokens; i++) {
                AbstractTensor step = model.forward(next, prompt.length + i - 1, kv, Optional.empty());
                next = model.sample(step, 0f, 0f, logits);
                step.close();
                out[prompt.length + i] = next;
            }
            return new Generation(out, firstLogits, (prompted - started) / 1e9, (System.nanoTime() - decoding) / 1e9);
        }
    }

    @Override
    public void close() { model.close(); }
}
