package dev.symbiont.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A training run's life: bad corpora, resuming, Ctrl-C, and an --out that already holds a run. */
class TrainRunTest {
    @TempDir
    Path dir;

    private static final String[] TINY = {"--batch", "8", "--context", "16", "--d-model", "32", "--layers", "1", "--heads", "2"};

    private Path corpus(String text) throws Exception {
        Path corpus = dir.resolve("corpus.txt");
        Files.writeString(corpus, text);
        return corpus;
    }

    private CliRun train(Path corpus, Path out, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("train", "--corpus", corpus.toString(), "--out", out.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    private static String[] tiny(String... more) {
        List<String> args = new java.util.ArrayList<>(List.of(TINY));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static void assertError(CliRun r, String message) {
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().strip().startsWith("symbiont train: " + message), r.err());
    }

    @Test
    void should_say_a_corpus_file_does_not_exist() {
        Path missing = dir.resolve("nope.txt");
        assertError(train(missing, dir.resolve("out")), "corpus file " + missing + " does not exist");
    }

    @Test
    void should_say_a_corpus_is_not_utf8_and_where() throws Exception {
        Path corpus = dir.resolve("latin1.txt");
        Files.write(corpus, new byte[] {'c', 'a', 'f', (byte) 0xe9, ' ', 'o', 'k'});
        assertError(train(corpus, dir.resolve("out")), "corpus " + corpus + " is not UTF-8 text: invalid byte 0xe9 at offset 3");
    }

    @Test
    void should_say_a_corpus_is_empty() throws Exception {
        Path corpus = corpus("");
        assertError(train(corpus, dir.resolve("out")), "corpus " + corpus + " is empty");
    }

    @Test
    void should_refuse_a_validation_split_smaller_than_one_batch() throws Exception {
        Path corpus = corpus("the cat sat on the mat. ".repeat(20));
        CliRun r = train(corpus, dir.resolve("out"), tiny());
        assertError(r, "the validation split of " + corpus + " (48 characters) holds 2 windows of --context 16, fewer than one --batch of 8");
    }

    @Test
    void should_count_a_single_step_in_the_singular() throws Exception {
        Path corpus = corpus("the cat sat on the mat. the dog sat on the log. ".repeat(40));
        CliRun r = train(corpus, dir.resolve("out"), tiny("--steps", "1", "--eval-every", "1"));
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("train: 1 step in"), r.out());
    }

    @Test
    void should_resume_from_the_checkpoint_with_its_settings_and_log_each_step_once() throws Exception {
        Path corpus = corpus("the cat sat on the mat. the dog sat on the log. ".repeat(40)), out = dir.resolve("out");
        CliRun first = train(corpus, out, tiny("--steps", "30", "--eval-every", "15"));
        assertEquals(0, first.code(), first.out() + first.err());

        CliRun resumed = run("train", "--out", out.toString(), "--resume", "--steps", "50");
        assertEquals(0, resumed.code(), resumed.out() + resumed.err());
        assertTrue(resumed.err().contains("resuming from step 30 of 50"), resumed.err());
        assertTrue(resumed.out().contains("train: 20 steps in"), resumed.out());
        assertTrue(resumed.out().contains("(from step 30 to 50)"), resumed.out());

        List<String> rows = Files.readAllLines(out.resolve("metrics.csv"));
        List<Long> steps = rows.stream().skip(1).map(l -> Long.parseLong(l.split(",")[0])).toList();
        assertEquals(steps.stream().distinct().sorted().toList(), steps, "each step once, in order: " + steps);
        assertEquals(50L, steps.getLast());
    }

    @Test
    void should_refuse_a_resume_flag_that_would_change_the_model() throws Exception {
        Path corpus = corpus("the cat sat on the mat. the dog sat on the log. ".repeat(40)), out = dir.resolve("out");
        assertEquals(0, train(corpus, out, tiny("--steps", "5", "--eval-every", "5")).code());
        assertError(run("train", "--out", out.toString(), "--resume", "--d-model", "64"),
                "--d-model 64 differs from the checkpoint's 32");
    }

    @Test
    void should_checkpoint_and_save_the_model_when_interrupted_and_say_how_to_resume() throws Exception {
        Path corpus = corpus("the cat sat on the mat. the dog sat on the log. ".repeat(40)), out = dir.resolve("out");
        List<String> args = new java.util.ArrayList<>(List.of("train", "--corpus", corpus.toString(), "--out", out.toString(), "--steps", "40"));
        args.addAll(List.of(TINY));
        CliRun r = run(cli -> ((TrainCommand) cli.getSubcommands().get("train").getCommand()).cancellation.request("interrupted"),
                args.toArray(String[]::new));
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("stopping at step 1: interrupted"), r.err());
        assertTrue(r.out().contains("train: interrupted at step 1 of 40; checkpoint in " + out.resolve("checkpoint.safetensors")
                + ". Continue with: symbiont train --out " + out + " --resume"), r.out());
        for (String f : new String[] {"model.safetensors", "tokenizer.json", "checkpoint.safetensors"}) {
            assertTrue(Files.exists(out.resolve(f)), f);
        }
        CliRun generated = run("generate", "--model", out.toString(), "--prompt", "the ", "--tokens", "5");
        assertEquals(0, generated.code(), generated.err());
        CliRun resumed = run("train", "--out", out.toString(), "--resume", "--steps", "3");
        assertTrue(resumed.err().contains("resuming from step 1 of 3"), resumed.err());
    }

    @Test
    void should_refuse_to_overwrite_a_run_without_resume_or_force() throws Exception {
        Path corpus = corpus("the cat sat on the mat. the dog sat on the log. ".repeat(40)), out = dir.resolve("out");
        assertEquals(0, train(corpus, out, tiny("--steps", "5", "--eval-every", "5")).code());
        assertError(train(corpus, out, tiny("--steps", "5")),
                out + " already holds a run (checkpoint.safetensors, metrics.csv, model.safetensors, tokenizer.json); "
                        + "pass --resume to continue it or --force to start over");
        CliRun forced = train(corpus, out, tiny("--steps", "4", "--eval-every", "4", "--force"));
        assertEquals(0, forced.code(), forced.err());
        List<String> rows = Files.readAllLines(out.resolve("metrics.csv"));
        assertEquals(List.of("4"), rows.stream().skip(1).map(l -> l.split(",")[0]).toList(), "a fresh metrics file");
    }
}
