package dev.symbiont.train;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Sequential;
import dev.symbiont.optim.Optimizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Generator states in training checkpoints: Philox (seed, offset) now, SplitMix64 words in format 1. */
class TrainingCheckpointFormatTest {
    @TempDir
    Path dir;

    private static Sequential model(long seed) {
        return new Sequential(new Linear(4, 4, true, new Generator(seed)), new Dropout(0.5, new Generator(seed + 1)));
    }

    private static Dropout dropout(Sequential m) {
        return (Dropout) m.namedModules().get("1");
    }

    @Test
    void aCheckpointSavesAndRestoresTheSeedAndOffsetOfEveryDropout() throws Exception {
        Sequential m = model(1);
        m.forward(Tensor.randn(new Generator(3), 2, 4));      // advances the dropout's offset
        long[] state = dropout(m).generator().state();
        Path file = dir.resolve("v2.safetensors");
        Optimizer opt = TrainerTest.optimizer(m);
        TrainingCheckpoint.save(file, m, opt, null, new TrainingCheckpoint.Position(1, 0, 1));
        assertEquals(TrainingCheckpoint.FORMAT, Safetensors.read(file).metadata().get("format"));

        Sequential resumed = model(9);
        TrainingCheckpoint.load(file, resumed, TrainerTest.optimizer(resumed), null);
        assertArrayEquals(state, dropout(resumed).generator().state());
        assertArrayEquals(new long[] {2, 2}, state);                 // seed 2, 8 elements = 2 blocks
    }

    @Test
    void aFormatOneCheckpointLoadsAndReseedsFromTheOldStateWord() throws Exception {
        Sequential m = model(1);
        Path file = dir.resolve("v2.safetensors"), old = dir.resolve("v1.safetensors");
        TrainingCheckpoint.save(file, m, TrainerTest.optimizer(m), null, new TrainingCheckpoint.Position(4, 0, 4));
        SafetensorsFile f = Safetensors.read(file);
        Map<String, String> meta = new LinkedHashMap<>(f.metadata());
        meta.put("format", TrainingCheckpoint.FORMAT_SPLITMIX);
        meta.put("rng.1", "-7046029254386353131," + Double.doubleToRawLongBits(Double.NaN)); // SplitMix64 state, spare Gaussian
        Safetensors.write(old, f.tensors(), meta);

        Sequential resumed = model(9);
        TrainingCheckpoint.Position p = TrainingCheckpoint.load(old, resumed, TrainerTest.optimizer(resumed), null);
        assertEquals(4, p.step());
        assertArrayEquals(new long[] {-7046029254386353131L, 0}, dropout(resumed).generator().state());
        assertArrayEquals(m.namedParameters().get("0.weight").value().toFloatArray(),
                resumed.namedParameters().get("0.weight").value().toFloatArray());
    }
}
