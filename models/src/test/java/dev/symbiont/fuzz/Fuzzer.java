package dev.symbiont.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A seeded mutation fuzzer for file loaders. Each case picks a corpus file, mutates it
 * ({@link Mutator}) with a {@link Random} seeded from the run's seed and the case number, writes
 * it to disk and loads it on a worker thread, then applies the oracle:
 * <ul>
 *   <li>the load returns and {@link FuzzTarget#check} accepts the result, or</li>
 *   <li>it throws {@link FuzzTarget#failure()} whose message names the file and stays short;</li>
 *   <li>anything else fails the case: another exception, an Error (OutOfMemoryError,
 *       StackOverflowError), a load still running after the per-case time bound, or a load that
 *       allocated more than {@link FuzzTarget#allocationBound} bytes.</li>
 * </ul>
 * The corpus files themselves run first, unmutated. A failing input is saved under
 * {@code target/fuzz-failures/<target>/} with the seed and case in its name.
 *
 * <p>System properties: {@code symbiont.fuzz.cases} (per target), {@code symbiont.fuzz.seed},
 * {@code symbiont.fuzz.case} (run that one case only) and {@code symbiont.fuzz.timeoutSeconds}.
 */
public final class Fuzzer {
    /** Cases per target in the normal test run: a few seconds each. */
    static final int DEFAULT_CASES = 5_000;
    static final long DEFAULT_SEED = 14;
    /** A hang, not a slow machine: no case of a sane loader takes a fraction of this. */
    static final int DEFAULT_TIMEOUT_SECONDS = 30;
    /** A message may name the file, a tensor, a value and an offset, each cut short; not more. */
    static final int MAX_MESSAGE_CHARS = 1_000;
    private static final int MAX_REPORTED = 5;

    private final FuzzTarget target;
    private final Path work;
    private final Path failures;
    private final List<byte[]> corpus;
    private final List<String> corpusNames;
    private final Mutator mutator;
    private ExecutorService worker = newWorker();
    private final List<String> problems = new ArrayList<>();
    private int loaded, rejected;

    private Fuzzer(FuzzTarget target, Path work) {
        this.target = target;
        this.work = work;
        this.failures = Path.of("target", "fuzz-failures", target.name());
        this.corpusNames = Corpus.names(target.name());
        this.corpus = corpusNames.stream().map(n -> Corpus.bytes(target.name(), n)).toList();
        this.mutator = new Mutator(corpus, target);
    }

    /** The bytes a load of an {@code n}-byte file may allocate: the parsed tree and the result take tens of times the file. */
    public static long allocationBound(long n) {
        return 64 * n + (8 << 20);
    }

    /**
     * Fuzzes the named targets outside JUnit, with the same system properties, e.g.
     * {@code java -Dsymbiont.fuzz.cases=100000 -cp ... dev.symbiont.fuzz.Fuzzer safetensors bpe char idx}.
     */
    public static void main(String[] args) throws Exception {
        Map<String, FuzzTarget> targets = new LinkedHashMap<>();
        for (FuzzTarget t : List.of(new SafetensorsTarget(), TokenizerTarget.bpe(), TokenizerTarget.chars(), new IdxTarget())) targets.put(t.name(), t);
        Path work = Files.createTempDirectory("symbiont-fuzz");
        for (String name : args.length == 0 ? targets.keySet().toArray(String[]::new) : args) {
            FuzzTarget target = targets.get(name);
            if (target == null) throw new IllegalArgumentException("no fuzz target " + name + "; known: " + targets.keySet());
            check(target, work);
        }
    }

    /** Runs the corpus and the configured number of mutated cases; throws AssertionError listing what failed. */
    public static void check(FuzzTarget target, Path work) throws IOException, InterruptedException {
        Fuzzer f = new Fuzzer(target, work);
        long seed = Long.getLong("symbiont.fuzz.seed", DEFAULT_SEED);
        int cases = Integer.getInteger("symbiont.fuzz.cases", DEFAULT_CASES);
        Integer only = Integer.getInteger("symbiont.fuzz.case");
        long start = System.nanoTime();
        try {
            for (int i = 0; i < f.corpus.size(); i++) f.run(f.corpusNames.get(i), f.corpus.get(i));
            if (only != null) {
                f.run(seed, only);
            } else {
                for (int i = 0; i < cases && f.problems.size() < MAX_REPORTED; i++) f.run(seed, i);
            }
        } finally {
            f.worker.shutdownNow();
        }
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        System.out.printf("fuzz %s: %d cases (seed %d) and %d corpus files, %d loaded, %d rejected, %d failed, %d s%n",
                target.name(), only != null ? 1 : cases, seed, f.corpus.size(), f.loaded, f.rejected, f.problems.size(), seconds);
        if (!f.problems.isEmpty()) {
            throw new AssertionError("fuzzing " + target.name() + " found " + f.problems.size() + " failure(s) (inputs saved under "
                    + f.failures.toAbsolutePath() + "):\n" + String.join("\n", f.problems));
        }
    }

    private void run(long seed, int index) throws IOException, InterruptedException {
        Random rng = new Random(seed * 0x9E3779B97F4A7C15L + index);
        byte[] input = mutator.mutate(corpus.get(rng.nextInt(corpus.size())), rng);
        run("case-" + seed + "-" + index, input);
    }

    private void run(String name, byte[] input) throws IOException, InterruptedException {
        Path file = work.resolve(name + target.suffix());
        Files.write(file, input);
        String problem = problem(file, input);
        if (problem != null) {
            Files.createDirectories(failures);
            Files.write(failures.resolve(file.getFileName()), input);
            problems.add(name + ": " + problem);
        }
        Files.delete(file);
    }

    /** What is wrong with loading {@code file}, or null when the oracle is satisfied. */
    private String problem(Path file, byte[] input) throws InterruptedException {
        long bound = target.allocationBound(input);
        Future<String> outcome = worker.submit(() -> {
            Object result = null;
            Throwable thrown = null;
            long before = Allocation.byThisThread();
            try {
                result = target.load(file);
            } catch (Throwable t) {
                thrown = t;
            }
            long allocated = Allocation.byThisThread() - before;
            if (allocated > bound) {
                return (thrown == null ? "loaded" : "threw " + describe(thrown)) + ", allocating " + allocated
                        + " bytes for a " + input.length + "-byte file";
            }
            if (thrown != null) return rejection(file, thrown);
            try {
                target.check(result, file, input);
            } catch (Throwable t) {
                return "loaded, but inconsistent: " + describe(t);
            }
            loaded++;
            return null;
        });
        int timeout = Integer.getInteger("symbiont.fuzz.timeoutSeconds", DEFAULT_TIMEOUT_SECONDS);
        try {
            return outcome.get(timeout, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            outcome.cancel(true);
            worker.shutdownNow(); // the stuck thread is a daemon; the next case gets a fresh one
            worker = newWorker();
            return "still running after " + timeout + " s";
        } catch (ExecutionException e) {
            return "harness error: " + describe(e.getCause());
        }
    }

    /** Null for the documented failure (counted), else what was wrong with the exception. */
    private String rejection(Path file, Throwable t) {
        if (!target.failure().isInstance(t)) return "threw " + describe(t);
        String message = t.getMessage();
        if (message == null || !message.contains(file.toString())) return "message does not name the file: " + describe(t);
        if (message.length() > MAX_MESSAGE_CHARS) return "message of " + message.length() + " chars: " + describe(t);
        rejected++;
        return null;
    }

    private static String describe(Throwable t) {
        String message = String.valueOf(t.getMessage());
        if (message.length() > 300) message = message.substring(0, 300) + "...";
        StackTraceElement[] stack = t.getStackTrace();
        return t.getClass().getName() + ": " + message + (stack.length == 0 ? "" : " at " + stack[0]);
    }

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-worker");
            t.setDaemon(true);
            return t;
        });
    }
}
