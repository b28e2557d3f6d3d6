package dev.symbiont.cli;

import dev.symbiont.core.Tensor;
import dev.symbiont.data.vision.IdxArray;
import dev.symbiont.data.vision.IdxWriter;
import dev.symbiont.data.vision.Split;
import dev.symbiont.io.Safetensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line's rough edges: no or a mistyped command, flags past their range, output and model paths, large inputs. */
class CommandLineEdgesTest {
    @TempDir
    Path dir;

    /** Exit code 2 and a first line of standard error that is exactly {@code symbiont <command>: <message>}. */
    private static void assertOneLine(CliRun r, String command, String message) {
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals("symbiont " + command + ": " + message, r.err().strip().lines().findFirst().orElseThrow(), r.err());
    }

    @Test
    void should_print_usage_on_standard_error_and_exit_2_without_a_command() {
        CliRun r = run();
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("symbiont: missing command: give one of train, finetune, eval, generate, demo, backends"), r.err());
        assertTrue(r.err().contains("Usage: symbiont"), r.err());
        assertFalse(r.out().contains("Usage"), r.out());
    }

    @Test
    void should_suggest_the_command_a_typo_meant() {
        CliRun r = run("trian");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("Did you mean") && r.err().contains("train"), r.err());
    }

    @Test
    void should_range_check_the_image_options() {
        assertOneLine(run("train", "--task", "fashion-mnist", "--width", "100000", "--out", dir.resolve("w").toString()), "train",
                "--width must be an integer in [1, 4096], got 100000");
        assertOneLine(run("train", "--task", "fashion-mnist", "--crop-padding", "1000", "--out", dir.resolve("c").toString()), "train",
                "--crop-padding must be an integer in [0, 28], got 1000");
    }

    @Test
    void should_refuse_an_empty_out_and_one_naming_a_file() throws IOException {
        assertOneLine(run("train", "--out", ""), "train", "--out is empty: name the directory to write into");
        Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
        assertOneLine(run("train", "--out", file.toString()), "train",
                "--out " + file + ": it is an existing file, not a directory; name a directory to write into");
        assertOneLine(run("train", "--out", file.resolve("run").toString()), "train",
                "--out " + file.resolve("run") + ": " + file + " is an existing file, not a directory; name a directory to write into");
        assertEquals("mine", Files.readString(file));
    }

    @Test
    void should_name_the_context_flag_when_the_corpus_cannot_fill_one_window() {
        CliRun r = run("train", "--context", "1000000", "--out", dir.resolve("c").toString());
        assertEquals(2, r.code());
        String line = r.err().strip();
        assertTrue(line.startsWith("symbiont train: the training split of shipped corpus (") && !line.contains("TokenWindows")
                && line.endsWith(" characters) holds 0 windows of --context 1000000, fewer than one --batch of 32; "
                        + "use a larger corpus or a smaller --batch or --context"), line);
    }

    @Test
    void should_accept_the_deprecated_top_k_for_the_router_with_one_note() {
        CliRun r = run("train", "--arch", "moe", "--experts", "2", "--top-k", "3", "--out", dir.resolve("moe").toString());
        assertTrue(r.err().startsWith("train: --top-k is deprecated for the MoE router, use --experts-per-token"), r.err());
        assertTrue(r.err().contains("symbiont train: --experts-per-token 3 exceeds --experts 2"), r.err());
        assertEquals(2, r.code());
    }

    private Path writeWeights(String name, Map<String, String> metadata) throws IOException {
        Path model = dir.resolve(name);
        Files.createDirectories(model);
        Safetensors.write(model.resolve(ModelFiles.WEIGHTS), Map.of("w", Tensor.fromArray(new float[] {0}, 1)), metadata);
        return model;
    }

    @Test
    void should_say_what_a_model_directory_is_or_lacks_when_generate_cannot_use_it() throws IOException {
        Path image = writeWeights("image", Map.of("task", ImageOptions.TASK, ImageArchitecture.ARCHITECTURE, "resnet"));
        assertOneLine(run("generate", "--model", image.toString()), "generate", "--model " + image + " holds an image classifier (resnet on "
                + "fashion-mnist), not a language model: evaluate it with `symbiont eval --model " + image + "`");
        Path noTokenizer = writeWeights("lm", Map.of("architecture", "gpt"));
        assertOneLine(run("generate", "--model", noTokenizer.toString()), "generate", "--model " + noTokenizer
                + " has model.safetensors but no tokenizer.json, which generate needs to read the prompt and write text (train writes both)");
        Path lm = dir.resolve("lm-for-prompts");
        assertEquals(0, trainTiny(lm).code());
        assertOneLine(run("generate", "--model", lm.toString(), "--prompt", ""), "generate", "--prompt is empty: give at least one character to continue");
        assertOneLine(run("generate", "--model", lm.toString(), "--tokens", "3", "--max-new-tokens", "4"), "generate",
                "--tokens and --max-new-tokens are the same setting: give one");
        assertTrue(run("generate", "--model", lm.toString(), "--prompt", "Z").err().startsWith("symbiont generate: --prompt: "));
        Path file = Files.writeString(dir.resolve("model.txt"), "x");
        assertTrue(run("generate", "--model", file.toString()).err().startsWith("symbiont generate: --model " + file + " is a file"));
    }

    @Test
    void should_refuse_a_corpus_that_is_a_device_or_too_large_naming_it() throws IOException {
        Path zero = Path.of("/dev/zero");
        if (Files.exists(zero)) {
            IOException e = assertThrows(IOException.class, () -> Corpus.read(zero));
            assertEquals("corpus /dev/zero is not a regular file (a device, pipe or socket has no size to check); give a text file", e.getMessage());
        }
        Path big = dir.resolve("big.txt");
        try (var f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(Corpus.MAX_BYTES + 1); // sparse: no disk space used
        }
        IOException e = assertThrows(IOException.class, () -> Corpus.read(big));
        assertEquals("corpus " + big + " is 268,435,457 bytes, more than the 268,435,456 a corpus may hold (in memory each character takes "
                + "about 10 bytes: text, ids and splits); train on a part of it", e.getMessage());
    }

    @Test
    void should_decode_a_corpus_read_in_pieces_and_place_a_bad_byte_exactly() throws IOException {
        String text = "é".repeat(40_000) + "日本".repeat(20_000) + "ok"; // multi-byte characters across every 64 KiB boundary
        Path good = Files.writeString(dir.resolve("good.txt"), text);
        assertEquals(text, Corpus.read(good));
        byte[] bytes = Files.readAllBytes(good);
        bytes[100_001] = (byte) 0xFF;
        Path bad = Files.write(dir.resolve("bad.txt"), bytes);
        IOException e = assertThrows(IOException.class, () -> Corpus.read(bad));
        assertEquals("corpus " + bad + " is not UTF-8 text: invalid byte 0xff at offset 100001", e.getMessage());
    }

    @Test
    void should_turn_an_out_of_memory_error_into_one_line_with_what_was_done_and_the_fix() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new CommonOptions().run("generate", b -> {
            throw new OutOfMemoryError("Java heap space");
        }));
        assertTrue(e.getMessage().startsWith("out of memory while running generate (Java heap space; the JVM's heap limit is "), e.getMessage());
        assertTrue(e.getMessage().contains("JAVA_OPTS=-Xmx16g"), e.getMessage());
    }

    @Test
    void should_name_the_file_and_the_problem_where_the_jdk_message_is_a_bare_path_or_reason() {
        assertEquals("runs/x/metrics.csv: no such file or directory", Failures.message(new NoSuchFileException("runs/x/metrics.csv")));
        assertEquals("runs/x: expected train-images here", Failures.message(new NoSuchFileException("runs/x", null, "expected train-images here")));
        assertEquals("/root/a: permission denied", Failures.message(new java.io.UncheckedIOException(new AccessDeniedException("/root/a"))));
        assertEquals("runs/x: Is a directory", Failures.message(new FileSystemException("runs/x", null, "Is a directory")));
        assertEquals("NullPointerException", Failures.message(new NullPointerException()));
    }

    @Test
    void should_refuse_to_evaluate_an_empty_test_split() throws IOException {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        IdxWriter.write(data.resolve(Split.TRAIN.imagesFile()), new IdxArray(new int[] {1, 28, 28}, new byte[28 * 28]));
        IdxWriter.write(data.resolve(Split.TRAIN.labelsFile()), new IdxArray(new int[] {1}, new byte[1]));
        IdxWriter.write(data.resolve(Split.TEST.imagesFile()), new IdxArray(new int[] {0, 28, 28}, new byte[0]));
        IdxWriter.write(data.resolve(Split.TEST.labelsFile()), new IdxArray(new int[] {0}, new byte[0]));
        IOException e = assertThrows(IOException.class, () -> ImageData.of(data.toString()).dataset(Split.TEST, 1));
        assertEquals("the test split of Fashion-MNIST from " + data + " holds no images: there is nothing to evaluate", e.getMessage());
    }

    /** A tiny char-LM run of 20 steps, no evaluation during it. */
    private CliRun trainTiny(Path out, String... more) throws IOException {
        Path corpus = dir.resolve("corpus.txt");
        Files.writeString(corpus, "the cat sat on the mat. the dog sat on the log. ".repeat(40));
        var args = new java.util.ArrayList<>(java.util.List.of("train", "--corpus", corpus.toString(), "--out", out.toString(), "--steps", "20",
                "--batch", "8", "--context", "16", "--d-model", "16", "--layers", "1", "--heads", "2"));
        args.addAll(java.util.List.of(more));
        return run(args.toArray(String[]::new));
    }

    @Test
    void should_name_the_flags_when_the_model_options_do_not_fit_together() throws IOException {
        assertOneLine(run("train", "--out", dir.resolve("h").toString(), "--d-model", "16", "--heads", "3"), "train",
                "--heads 3 must divide --d-model 16: each head takes d_model / heads channels");
    }

    @Test
    void should_report_no_validation_for_eval_every_0_and_leave_a_finished_run_untouched_on_resume() throws IOException {
        Path out = dir.resolve("run");
        CliRun trained = trainTiny(out, "--eval-every", "0");
        assertEquals(0, trained.code(), trained.out() + trained.err());
        assertTrue(trained.out().contains("20 steps in ") && trained.out().contains(", no validation (--eval-every 0); model saved to "), trained.out());
        assertFalse(trained.out().contains("NaN"), trained.out());

        byte[] model = Files.readAllBytes(out.resolve(ModelFiles.WEIGHTS)), checkpoint = Files.readAllBytes(out.resolve(RunDirectory.CHECKPOINT));
        CliRun again = run("train", "--out", out.toString(), "--resume");
        assertEquals(0, again.code(), again.out() + again.err());
        assertEquals("train: the run in " + out + " is already at step 20 of --steps 20; nothing to train, no file changed "
                + "(give a larger --steps to train on)", again.out().strip());
        CliRun back = run("train", "--out", out.toString(), "--resume", "--steps", "10");
        assertOneLine(back, "train", "--steps 10 is below the step 20 of the checkpoint in " + out.resolve(RunDirectory.CHECKPOINT)
                + ": a resumed run cannot go back; give --steps above 20 or start over with --force");
        assertArrayEquals(model, Files.readAllBytes(out.resolve(ModelFiles.WEIGHTS)));
        assertArrayEquals(checkpoint, Files.readAllBytes(out.resolve(RunDirectory.CHECKPOINT)));
    }

    @Test
    void should_generate_a_huge_count_as_a_stream_and_print_text_as_it_comes() throws IOException {
        Path out = dir.resolve("lm");
        assertEquals(0, trainTiny(out).code());
        ModelFiles.Loaded loaded = ModelFiles.load(out);
        long[] prompt = {1, 2, 3};
        var streamed = new java.util.ArrayList<Long>();
        class Enough extends RuntimeException {}
        // Integer.MAX_VALUE tokens past a 16-token context: nothing is reserved for them, the window slides.
        var config = dev.symbiont.models.GenerationConfig.DEFAULT.withSampling(dev.symbiont.models.gpt.Sampling.temperature(1))
                .withMaxNewTokens(Integer.MAX_VALUE);
        assertThrows(Enough.class, () -> loaded.model().generate(prompt, config, new dev.symbiont.core.Generator(1), id -> {
            streamed.add(id);
            if (streamed.size() == 100) throw new Enough();
        }));
        assertEquals(100, streamed.size(), "100 tokens, sliding past the context of 16 several times");

        CliRun r = run("generate", "--model", out.toString(), "--prompt", "the ", "--tokens", "600", "--seed", "2");
        assertEquals(0, r.code(), r.err());
        assertEquals(4 + 600 + 1, r.out().length(), "the prompt, 600 characters printed as they come, a newline");
    }
}
