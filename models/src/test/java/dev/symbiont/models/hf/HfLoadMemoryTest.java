package dev.symbiont.models.hf;

import dev.symbiont.core.DType;
import dev.symbiont.core.memory.MemoryMeasure;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.models.LoadOptions;
import dev.symbiont.models.PretrainedModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * BF16 weights are widened to float32 at load (the model holds 4 bytes a parameter), and loading
 * holds the model and one tensor of the checkpoint at a time, never a shard of it.
 */
class HfLoadMemoryTest {
    @Test
    void a_bf16_checkpoint_loads_into_float32_holding_one_tensor_of_it_at_a_time(@TempDir Path tmp) throws Exception {
        Sizes m = bf16Checkpoint(tmp);
        LoadOptions on = LoadOptions.defaults().on(m.backend).inFloat32(true);
        long retained = MemoryMeasure.retainedBy(m.backend, () -> load(m.dir, on));
        long peak = MemoryMeasure.peakAbove(m.backend, () -> load(m.dir, on));
        // the backend counts buffers of 4 KiB and more: the embedding and the head, float32, hold 256 KiB of it (bfloat16 would be 128)
        assertTrue(retained >= 2 * 4 * LARGEST && retained <= 4 * m.params + 64 * 1024, "float32 weights: " + retained);
        // the tensor being loaded, widened, and the parameter's own copy of it; below the 4·params a loader
        // holding the file (or a shard) widened would add
        assertTrue(peak <= retained + 2 * 4 * LARGEST + 16 * 1024, "peak " + peak + " over a model of " + retained);
    }

    @Test
    void by_default_its_matrices_stay_bf16_and_the_model_holds_half_the_bytes(@TempDir Path tmp) throws Exception {
        Sizes m = bf16Checkpoint(tmp);
        LoadOptions on = LoadOptions.defaults().on(m.backend);
        long retained = MemoryMeasure.retainedBy(m.backend, () -> load(m.dir, on));
        long peak = MemoryMeasure.peakAbove(m.backend, () -> load(m.dir, on));
        assertTrue(retained >= 2 * 2 * LARGEST && retained <= 2 * m.params + 64 * 1024, "bfloat16 matrices: " + retained);
        // the model is built in float32 and its matrices narrowed after loading: never more than the float32 model
        assertTrue(peak <= 4 * m.params + 2 * 4 * LARGEST + 16 * 1024, "peak " + peak + " for " + m.params + " parameters");
    }

    /** The embedding and the head: 32K parameters each, the largest tensors. */
    private static final long LARGEST = 1024 * 32;

    private record Sizes(Path dir, long params, ReferenceBackend backend) {}

    /** A Llama whose vocabulary (1024) makes the embedding and the head dominate, in one bfloat16 file. */
    private static Sizes bf16Checkpoint(Path tmp) throws IOException {
        Map<String, Object> config = HfLogitsTest.llamaConfig();
        config.put("vocab_size", 1024);
        HfCheckpoint c = HfCheckpoint.llama(config, 41).in(DType.BFLOAT16);
        long params = c.weights.values().stream().mapToLong(v -> v.length).sum();
        Path dir = c.write(tmp.resolve("m"), 1);                        // one file: a shard-at-a-time loader would hold all of it
        return new Sizes(dir, params, new ReferenceBackend());
    }

    private static Object load(Path dir, LoadOptions options) {
        try {
            return PretrainedModels.load(dir, options);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
