package dev.symbiont.cli;

import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line, fuzzed: {@code train}, {@code generate} and {@code demo} with one to three
 * of their flags given boundary or malformed values, paths that are devices, files, empty or
 * missing, mistyped commands and options; and the corpus reader on mutated text files. The
 * oracle: exit 0, or exit 2 with a line {@code symbiont <command>: ...} of at most 1,000
 * characters that names a flag, a file or the command, and no stack trace or raw JDK message
 * ({@code For input string}, {@code Input length = }, an exception's class name) anywhere on
 * standard error, within the time bound (a train case may run into its --minutes).
 *
 * <p>A few hundred cases in the normal run; {@code -Dsymbiont.fuzz.cli.cases=100000} (and
 * {@code -Dsymbiont.fuzz.seed=S}) for a long one. The size flags draw values that are rejected or
 * small: a model of in-range but huge size is a legitimate request that ends in the one-line
 * out-of-memory error, too slow and memory-hungry to repeat thousands of times.
 */
class CommandLineFuzzTest {
    private static final int DEFAULT_CASES = 60, DEFAULT_CORPUS_CASES = 500, TIMEOUT_SECONDS = 150, MAX_LINE = 1_000;
    private static final List<String> RAW = List.of("\tat ", "Exception", "For input string", "Cannot parse null string", "Input length =",
            "Error:", "NaN nats", "accuracy NaN");

    @TempDir
    static Path dir;
    private static Path corpus, model, imageModel, noTokenizer, badUtf8, emptyFile;

    private static final String[] INTS = {"0", "-1", "1", "2", "3", "7", "1025", "65537", "1048577", "2147483647", "2147483648",
            "-2147483648", "", "abc", "1.5", "0x10", " 3", "1e3", "99999999999999999999"};
    private static final String[] DOUBLES = {"0", "-0.0", "1e-320", "4.9e-324", "1e300", "NaN", "Infinity", "-Infinity", "", "abc", "1e",
            "0.5", "1", "2", "1.7976931348623157E308"};

    @BeforeAll
    static void files() throws IOException {
        corpus = Files.writeString(dir.resolve("corpus.txt"), "the cat sat on the mat. the dog sat on the log. ".repeat(30));
        model = dir.resolve("model");
        CliRun trained = CliRun.run("train", "--corpus", corpus.toString(), "--out", model.toString(), "--steps", "3", "--batch", "4",
                "--context", "16", "--d-model", "8", "--layers", "1", "--heads", "1", "--eval-every", "0");
        assertEquals(0, trained.code(), trained.err());
        imageModel = dir.resolve("image");
        noTokenizer = dir.resolve("no-tokenizer");
        for (Path p : List.of(imageModel, noTokenizer)) Files.createDirectories(p);
        Map<String, Tensor> one = Map.of("w", Tensor.fromArray(new float[] {0}, 1));
        Safetensors.write(imageModel.resolve(ModelFiles.WEIGHTS), one, Map.of("task", ImageOptions.TASK, "architecture", "resnet"));
        Files.copy(model.resolve(ModelFiles.WEIGHTS), noTokenizer.resolve(ModelFiles.WEIGHTS));
        badUtf8 = Files.write(dir.resolve("bad.txt"), new byte[] {'a', 'b', (byte) 0xC3, '(', 'c'});
        emptyFile = Files.writeString(dir.resolve("empty.txt"), "  \n");
    }

    private static String[] paths(boolean directory) {
        Path good = directory ? model : corpus;
        return new String[] {good.toString(), "", "/dev/zero", "/dev/urandom", "/dev/null", dir.toString(), corpus.toString(), dir.resolve("missing").toString(),
                corpus.resolve("under-a-file").toString(), badUtf8.toString(), emptyFile.toString(), imageModel.toString(), noTokenizer.toString()};
    }

    /** One case: a template of a command that runs in well under a second, with one to three flags' values replaced. */
    private static List<String> arguments(Random rng, Path out) {
        int command = rng.nextInt(3);
        List<String> args = new ArrayList<>(switch (command) {
            case 0 -> List.of("train", "--corpus", corpus.toString(), "--out", out.toString(), "--steps", "2", "--batch", "4", "--context", "16",
                    "--d-model", "8", "--layers", "1", "--heads", "1", "--eval-every", "0", "--minutes", "0.02");
            case 1 -> List.of("generate", "--model", model.toString(), "--prompt", "the ", "--tokens", "5");
            default -> List.of("demo", "--steps", "2", "--hidden", "4");
        });
        String[][] flags = switch (command) {
            case 0 -> new String[][] {{"--corpus", "path"}, {"--out", "out"}, {"--steps", "int"}, {"--batch", "int"}, {"--context", "int"},
                    {"--d-model", "int"}, {"--layers", "int"}, {"--heads", "int"}, {"--eval-every", "int"}, {"--minutes", "double"},
                    {"--lr", "double"}, {"--init-std", "double"}, {"--seed", "int"}, {"--arch", "arch"}, {"--experts", "int"},
                    {"--experts-per-token", "int"}, {"--top-k", "int"}, {"--d-state", "int"}, {"--expand", "int"}, {"--task", "task"},
                    {"--resume", null}, {"--force", null}};
            case 1 -> new String[][] {{"--model", "dir"}, {"--tokens", "int"}, {"--temperature", "double"}, {"--top-k", "int"},
                    {"--top-p", "double"}, {"--prompt", "prompt"}, {"--seed", "int"}};
            default -> new String[][] {{"--steps", "int"}, {"--hidden", "int"}, {"--lr", "double"}};
        };
        for (int edits = 1 + rng.nextInt(3); edits > 0; edits--) {
            String[] flag = flags[rng.nextInt(flags.length)];
            if (flag[1] == null) {
                args.add(flag[0]);
                continue;
            }
            String value = switch (flag[1]) {
                case "int" -> INTS[rng.nextInt(INTS.length)];
                case "double" -> DOUBLES[rng.nextInt(DOUBLES.length)];
                case "path" -> paths(false)[rng.nextInt(paths(false).length)];
                case "dir" -> paths(true)[rng.nextInt(paths(true).length)];
                case "out" -> new String[] {out.toString(), "", corpus.toString(), corpus.resolve("run").toString(), "/dev/null",
                        out.resolve("deeper").toString()}[rng.nextInt(6)]; // never a fixture: --force would delete it
                case "arch" -> new String[] {"gpt", "mamba", "mamba2", "moe", "resnet", "", "GPT"}[rng.nextInt(7)];
                case "task" -> new String[] {"char-lm", "fashion-mnist", "", "mnist"}[rng.nextInt(4)];
                default -> new String[] {"", "Zebra", "t".repeat(40), "\uD800", "the\u0000", "é"}[rng.nextInt(6)];
            };
            int at = args.indexOf(flag[0]);
            if (at >= 0 && at + 1 < args.size()) args.set(at + 1, value);
            else args.addAll(List.of(flag[0], value));
        }
        switch (rng.nextInt(12)) { // now and then a mistyped command or option
            case 0 -> args.set(0, args.get(0).substring(1));
            case 1 -> args.add("--stpes");
            default -> { }
        }
        return args;
    }

    /** What is wrong with the run's outcome, or null. */
    static String problem(CliRun r, String command) {
        if (r.code() == 0) return null;
        if (r.code() != 2) return "exit code " + r.code();
        for (String line : r.err().lines().toList()) {
            for (String raw : RAW) if (line.contains(raw)) return "raw text '" + raw + "' in: " + line;
        }
        String line = r.err().lines().filter(l -> l.startsWith("symbiont " + command + ": ") || l.startsWith("symbiont: ")).findFirst().orElse(null);
        if (line == null || line.length() > MAX_LINE) return "no one-line error of at most " + MAX_LINE + " characters";
        // It names what to fix: a flag, a file (every path here is absolute) or the command.
        return line.contains("--") || line.contains("/") || line.contains("command") || line.contains("argument") ? null
                : "the error names no flag, file or command: " + line;
    }

    @Test
    void theCommandLineAnswersEveryMutatedInvocationWithSuccessOrOneLine() throws Exception {
        long seed = Long.getLong("symbiont.fuzz.seed", 14);
        int cases = Integer.getInteger("symbiont.fuzz.cli.cases", DEFAULT_CASES);
        List<String> problems = new ArrayList<>();
        ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "cli-fuzz");
            t.setDaemon(true);
            return t;
        });
        try {
            for (int i = 0; i < cases && problems.size() < 5; i++) {
                Random rng = new Random(seed * 0x9E3779B97F4A7C15L + i);
                List<String> args = arguments(rng, dir.resolve("out-" + i));
                Future<CliRun> run = worker.submit(() -> CliRun.run(args.toArray(String[]::new)));
                try {
                    CliRun r = run.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    String problem = problem(r, args.getFirst());
                    if (problem != null) problems.add("case " + i + " " + args + ": " + problem + "\n" + r.err());
                } catch (TimeoutException e) {
                    problems.add("case " + i + " " + args + ": still running after " + TIMEOUT_SECONDS + " s");
                    break; // the thread cannot be stopped; the next case would share its System.out
                }
            }
        } finally {
            worker.shutdownNow();
        }
        System.out.printf("fuzz cli: %d cases (seed %d), %d failed%n", cases, seed, problems.size());
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** Corpus.read on mutated text: the strict UTF-8 decoding of the bytes, or an IOException naming the file. */
    @Test
    void theCorpusReaderSurvivesMutatedFiles() throws IOException {
        long seed = Long.getLong("symbiont.fuzz.seed", 14);
        int cases = Integer.getInteger("symbiont.fuzz.cli.cases", DEFAULT_CORPUS_CASES);
        byte[] seedText = ("Shall I compare thee to a summer's day? é 日本 \uD83D\uDE00\n").repeat(3000).getBytes(StandardCharsets.UTF_8);
        Path file = dir.resolve("fuzz-corpus.txt");
        int rejected = 0;
        for (int i = 0; i < cases; i++) {
            Random rng = new Random(seed * 0x9E3779B97F4A7C15L + i);
            byte[] bytes = mutate(seedText, rng);
            Files.write(file, bytes);
            String expected = strict(bytes);
            try {
                String read = Corpus.read(file);
                assertEquals(expected, read, "case " + i);
            } catch (IOException e) {
                rejected++;
                assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().length() <= MAX_LINE, "case " + i + ": " + e.getMessage());
                assertTrue(expected == null || expected.isBlank(), "case " + i + " rejected valid text: " + e.getMessage());
            }
        }
        System.out.printf("fuzz corpus: %d cases (seed %d), %d rejected%n", cases, seed, rejected);
    }

    private static byte[] mutate(byte[] seed, Random rng) {
        byte[] b = seed.clone();
        switch (rng.nextInt(4)) {
            case 0 -> {
                for (int n = 1 + rng.nextInt(4); n > 0; n--) b[rng.nextInt(b.length)] = (byte) rng.nextInt(256);
            }
            case 1 -> b = java.util.Arrays.copyOf(b, rng.nextInt(b.length)); // cut, maybe inside a character
            case 2 -> b[rng.nextInt(b.length)] ^= (byte) (1 << rng.nextInt(8));
            default -> {
                int at = rng.nextInt(b.length);
                b = java.util.Arrays.copyOf(b, b.length);
                for (int k = at; k < Math.min(b.length, at + 70_000); k++) b[k] = (byte) (rng.nextBoolean() ? ' ' : 0x80); // across a 64 KiB piece
            }
        }
        return b;
    }

    /** The text of valid UTF-8, else null. */
    private static String strict(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
