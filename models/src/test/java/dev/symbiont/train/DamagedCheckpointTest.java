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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A damaged training checkpoint or metrics log is refused with one message naming the file and what is wrong. */
class DamagedCheckpointTest {
    @TempDir
    Path dir;

    private Sequential model() {
        return new Sequential(new Linear(4, 4, true, new Generator(1)), new Dropout(0.5, new Generator(2)));
    }

    /** A checkpoint after one AdamW step, then edited. */
    private Path checkpoint(Consumer<Map<String, String>> meta, Consumer<Map<String, Tensor>> tensors) throws Exception {
        Sequential m = model();
        Optimizer opt = TrainerTest.optimizer(m);
        m.forward(Tensor.randn(new Generator(3), 2, 4)).sum().backward();
        opt.step();
        Path file = dir.resolve("checkpoint.safetensors");
        TrainingCheckpoint.save(file, m, opt, null, new TrainingCheckpoint.Position(1, 0, 1));
        SafetensorsFile f = Safetensors.read(file);
        Map<String, String> md = new LinkedHashMap<>(f.metadata());
        Map<String, Tensor> t = new LinkedHashMap<>(f.tensors());
        meta.accept(md);
        tensors.accept(t);
        Safetensors.write(file, t, md);
        return file;
    }

    private String refusal(Path file) {
        Sequential m = model();
        IOException e = assertThrows(IOException.class, () -> TrainingCheckpoint.load(file, m, TrainerTest.optimizer(m), null));
        assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
        return e.getMessage();
    }

    @Test
    void malformedPositionFieldsAreNamed() throws Exception {
        assertTrue(refusal(checkpoint(m -> m.put("batch", "abc"), t -> { })).contains("'batch' is 'abc', not a whole number"));
        assertTrue(refusal(checkpoint(m -> m.put("epoch", "0.0"), t -> { })).contains("'epoch' is '0.0', not a whole number"));
        assertTrue(refusal(checkpoint(m -> m.remove("step"), t -> { })).contains("has no 'step'"));
        assertTrue(refusal(checkpoint(m -> m.put("step", "-1"), t -> { })).contains("'step' is -1, outside [0,"));
    }

    @Test
    void aGeneratorStateOfOneWordIsNamed() throws Exception {
        String message = refusal(checkpoint(m -> m.put("rng.1", "12345"), t -> { }));
        assertTrue(message.contains("'rng.1' is '12345', expected two numbers \"seed,offset\""), message);
    }

    @Test
    void impossibleOptimizerStateIsRefused() throws Exception {
        String step = refusal(checkpoint(m -> { }, t -> t.put("optimizer.state.0.weight.step", Tensor.fromArray(new long[] {-1}, new int[0]))));
        assertTrue(step.contains("state.0.weight.step is -1; a step count cannot be negative"), step);
        String negative = refusal(checkpoint(m -> { }, t -> t.put("optimizer.state.0.weight.exp_avg_sq",
                t.get("optimizer.state.0.weight.exp_avg_sq").neg().sub(1.0))));
        assertTrue(negative.contains("exp_avg_sq holds negative values"), negative);
        String nan = refusal(checkpoint(m -> { }, t -> t.put("optimizer.state.0.weight.exp_avg",
                t.get("optimizer.state.0.weight.exp_avg").mul(Float.NaN))));
        assertTrue(nan.contains("exp_avg holds NaN or infinite values"), nan);
    }

    @Test
    void nanModelWeightsInACheckpointAreRefused() throws Exception {
        String message = refusal(checkpoint(m -> { }, t -> t.put("model.0.bias", t.get("model.0.bias").mul(Float.POSITIVE_INFINITY))));
        assertTrue(message.contains("tensor '0.bias' holds NaN or infinite values"), message);
    }

    @Test
    void aMalformedMetricsLogNamesTheFileAndLine() throws Exception {
        Path csv = dir.resolve("metrics.csv");
        Files.writeString(csv, "step,loss\n1,2.0\nx,3.0\n");
        var e = assertThrows(IOException.class, () -> MetricsWriter.continuing(csv, 5));
        assertEquals(csv + ", line 3: the step is not a whole number", e.getMessage());
        Files.writeString(csv, "loss,step\n2.0,1\n3.0\n");
        var shortRow = assertThrows(IOException.class, () -> MetricsWriter.continuing(csv, 5));
        assertEquals(csv + ", line 3: the row has 1 columns, the header names the step in column 2", shortRow.getMessage());
        Files.write(csv, new byte[] {'s', 't', 'e', 'p', '\n', (byte) 0xC3, (byte) 0x28, '\n'});
        var utf = assertThrows(IOException.class, () -> MetricsWriter.continuing(csv, 5));
        assertEquals(csv + ": the metrics log is not valid UTF-8", utf.getMessage());
        Path folder = Files.createDirectory(dir.resolve("metrics-dir.csv"));
        var directory = assertThrows(IOException.class, () -> MetricsWriter.continuing(folder, 5));
        assertEquals(folder + ": the metrics log is not a regular file", directory.getMessage());
        Files.writeString(csv, "step,loss\n1,2.0\n7,3.0\n", StandardCharsets.UTF_8);
        MetricsWriter.continuing(csv, 5).close();
        assertEquals("step,loss\n1,2.0\n", Files.readString(csv));
    }
}
