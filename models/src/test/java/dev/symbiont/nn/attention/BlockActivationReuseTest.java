package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.heap.BufferPool;
import dev.symbiont.core.heap.ReleaseCheck;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.nn.Parameter;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Transformer block gives its activations back to the buffer pool once nothing reads them —
 * after backward in training, at the end of the forward without gradients — so the next step
 * takes last step's buffers instead of new ones, and computes the same numbers on them. In the
 * suite's poison run nothing is recycled and any read of a released activation throws, so
 * there the values are the check.
 */
class BlockActivationReuseTest {
    private static final int BATCH = 2, SEQ = 64, D = 32;   // activations of 4096 floats and more: pooled sizes

    private static TransformerBlock block() {
        return new TransformerBlock(BlockConfig.of(D, 2, 4 * D), new Generator(1));
    }

    private static BufferPool pool(Tensor t) { return ((ReferenceBackend) t.backend()).pool(); }

    @Test
    void trainingStepsAfterTheFirstTakeTheirActivationsFromThePoolWithTheSameGradients() {
        TransformerBlock block = block();
        Tensor x = Tensor.randn(new Generator(2), BATCH, SEQ, D).requiresGrad(true);
        BufferPool pool = pool(x);
        pool.clear();
        List<float[]> first = null;
        long[] misses = new long[3];
        for (int step = 0; step < misses.length; step++) {
            long before = pool.stats().misses();
            block.forward(x, null, true, null).sum().backward();
            misses[step] = pool.stats().misses() - before;
            List<float[]> grads = new ArrayList<>();
            grads.add(x.grad().toFloatArray());
            for (Parameter p : block.trainableParameters()) grads.add(p.value().grad().toFloatArray());
            if (first == null) first = grads;
            else for (int i = 0; i < grads.size(); i++) assertArrayEquals(first.get(i), grads.get(i), 0f, "step " + step + ", gradient " + i);
            block.zeroGrad();
            x.zeroGrad();
        }
        if (ReleaseCheck.poisoning()) return; // poisoned buffers never go back to the pool: the values above are the check
        // what a step hands out and nobody gives back: the output, and the gradients the leaves keep (zeroGrad drops them)
        long handedOut = 1 + (x.numel() >= BufferPool.MIN_ELEMENTS ? 1 : 0);
        for (Parameter p : block.trainableParameters()) if (p.value().numel() >= BufferPool.MIN_ELEMENTS) handedOut++;
        assertTrue(misses[0] > 2 * handedOut, "the first step allocates its activations, got " + misses[0]);
        // the three no rule saves (the mixers' outputs added to the stream, the stream between them) are held
        // weakly until backward, and a collection in between gives them to the collector instead
        long unsaved = 3;
        assertTrue(misses[2] >= handedOut && misses[2] <= handedOut + unsaved,
                "a later step takes everything else from the pool: " + misses[2] + " new against " + misses[0] + " in the first");
    }

    @Test
    void forwardsWithoutGradientsReuseEachOthersBuffers() {
        TransformerBlock block = block();
        Tensor x = Tensor.randn(new Generator(2), BATCH, SEQ, D);
        BufferPool pool = pool(x);
        pool.clear();
        float[] first = null;
        long[] misses = new long[3];
        try (var off = GradMode.disabled()) {
            for (int step = 0; step < misses.length; step++) {
                long before = pool.stats().misses();
                float[] y = block.forward(x, null, true, null).toFloatArray();
                misses[step] = pool.stats().misses() - before;
                if (first == null) first = y;
                else assertArrayEquals(first, y, 0f, "forward " + step);
            }
        }
        if (ReleaseCheck.poisoning()) return;
        assertTrue(misses[0] > 0, "the first forward allocates");
        assertTrue(misses[2] <= 1, "a later forward allocates at most its output, got " + misses[2] + " of " + misses[0]);
    }
}
