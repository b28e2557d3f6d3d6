package dev.symbiont.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.*;

class TrainGenerateCommandTest {
    @TempDir
    Path dir;

    /** A tiny corpus and model so the round trip takes a few seconds. */
    private Path trainTiny() throws Exception { return trainTinyRun().model(); }

    record Trained(Path model, String out) {}

    private Trained trainTinyRun() throws Exception {
        Path corpus = dir.resolve("corpus.txt");
        Files.writeString(corpus, "the cat sat on the mat. the dog sat on the log. ".repeat(40));
        CliRun r = run("train", "--corpus", corpus.toString(), "--out", dir.resolve("model").toString(), "--steps", "40",
                "--batch", "8", "--context", "16", "--d-model", "32", "--layers", "1", "--heads", "2", "--eval-every", "20");
        assertEquals(0, r.code(), r.out() + r.err());
        return new Trained(dir.resolve("model"), r.out());
    }

    @Test
    void should_train_beat_the_unigram_baseline_and_write_model_tokenizer_checkpoint_and_metrics() throws Exception {
        Trained t = trainTinyRun();
        Path model = t.model();
        var baseline = java.util.regex.Pattern.compile("unigram baseline ([0-9.]+)").matcher(t.out());
        var finalLoss = java.util.regex.Pattern.compile("validation loss ([0-9.]+)").matcher(t.out());
        assertTrue(baseline.find() && finalLoss.find(), t.out());
        assertTrue(Double.parseDouble(finalLoss.group(1)) < 0.7 * Double.parseDouble(baseline.group(1)), t.out());
        for (String f : new String[] {"model.safetensors", "tokenizer.json", "checkpoint.safetensors", "metrics.csv"}) {
            assertTrue(Files.exists(model.resolve(f)), f);
        }
    }

    @Test
    void should_generate_text_from_the_trained_model_reproducibly_by_seed() throws Exception {
        Path model = trainTiny();
        CliRun a = run("generate", "--model", model.toString(), "--prompt", "the ", "--tokens", "40", "--seed", "3");
        CliRun b = run("generate", "--model", model.toString(), "--prompt", "the ", "--tokens", "40", "--seed", "3");
        assertEquals(0, a.code(), a.err());
        assertTrue(a.out().startsWith("the "), a.out());
        assertEquals(4 + 40 + 1, a.out().length(), "prompt, 40 characters past the 16-character context, newline: " + a.out());
        assertEquals(a.out(), b.out());
    }

    @Test
    void should_continue_a_prompt_longer_than_the_context_from_its_last_half_context() throws Exception {
        Path model = trainTiny();
        String prompt = "the cat sat on the mat. the dog";
        CliRun r = run("generate", "--model", model.toString(), "--prompt", prompt, "--max-new-tokens", "5", "--temperature", "0");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(prompt), r.out());
        assertEquals(31 + 5 + 1, r.out().length(), "the 31-character prompt past the 16-character context, 5 characters, a newline");
        // The last half context of the prompt is its last 8 characters: from them alone the greedy continuation is the same.
        CliRun tail = run("generate", "--model", model.toString(), "--prompt", " the dog", "--max-new-tokens", "5", "--temperature", "0");
        assertEquals(0, tail.code(), tail.err());
        assertEquals(r.out().substring(31), tail.out().substring(8));
    }

    @Test
    void should_report_a_missing_model_and_a_character_outside_the_vocabulary() throws Exception {
        CliRun missing = run("generate", "--model", dir.resolve("nothing").toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("no model at"), missing.err());
        Path model = trainTiny();
        CliRun unknown = run("generate", "--model", model.toString(), "--prompt", "Zebra");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("'Z'"), unknown.err());
    }
}
