package dev.symbiont.examples;

import dev.symbiont.io.Safetensors;
import dev.symbiont.train.Trainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class TrainingExampleTest {
    @Test
    void should_train_the_documented_example_to_near_the_noise_floor(@TempDir Path dir) throws Exception {
        Trainer.Result r = TrainingExample.run(dir, 200);
        assertEquals(200, r.steps());
        // The targets have unit variance plus noise of std 0.05: a fitted model is far below 1.
        assertTrue(r.evalLoss() < 0.1, "validation MSE " + r.evalLoss());
        assertTrue(Files.exists(dir.resolve("checkpoint.safetensors")));
        assertTrue(Safetensors.header(dir.resolve("model.safetensors")).tensors().containsKey("blocks.0.up.weight"));
        assertEquals(1 + 200 / 10 + 0, Files.readAllLines(dir.resolve("metrics.csv")).size() - countEvalOnlyLines(dir));
    }

    /** Evaluation steps that are not also log steps add a line each. */
    private static int countEvalOnlyLines(Path dir) throws Exception {
        return (int) Files.readAllLines(dir.resolve("metrics.csv")).stream().skip(1)
                .filter(l -> Long.parseLong(l.split(",")[0]) % 10 != 0).count();
    }
}
