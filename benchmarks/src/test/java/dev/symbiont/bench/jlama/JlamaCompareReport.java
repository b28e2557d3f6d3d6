package dev.symbiont.bench.jlama;

import com.github.tjake.jlama.util.PhysicalCoreExecutor;
import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.GenerationConfig;
import dev.symbiont.models.GenerationStats;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.gpt.Sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Greedy generation speed, Symbiont against jlama 0.8.4 in one JVM on the same Hugging Face
 * directory: batch 1, a prompt of 128 random ids, 256 new tokens, random weights of the shapes of a
 * ~120M Llama (hidden 768, 12 layers, 12 heads, 4 key/value heads, MLP 2048, vocab 32 000) and of
 * GPT-2 small (768, 12 layers, 12 heads, vocab 50 257), stored as float32 or bfloat16. Per model:
 * one warm-up generation each, then {@code reps} rounds that run both engines back to back, the
 * order alternating round by round so both see the same minute of the machine. Printed: the
 * medians of the end-to-end rate (new tokens / (prefill + decoding)) and of the decoding rate (the
 * 127 steps after the first token), Symbiont ÷ jlama of each, and how many new tokens the two
 * continuations share before they part: at these widths the random weights (std 0.3, not a trained
 * model's scale) saturate attention, logits reach ±35 and differ by ~1e-3 relative between the
 * engines, so a near-tie can part them (JlamaAgreementTest checks agreement on tiny models whose logits stay well apart).
 *
 * <p>Run with {@code benchmarks/jlama-compare.sh [reps [model ...]]} (models: llama-f32 llama-bf16
 * gpt2-f32 gpt2-bf16), {@code benchmarks/jlama-compare.sh profile MODEL} for Symbiont's profiler
 * table over one generation, or {@code benchmarks/jlama-compare.sh memory [model ...]} for each
 * engine's peak memory in a JVM of its own ({@link PeakMemory}).
 */
public final class JlamaCompareReport {
    static final int PROMPT = 128, NEW_TOKENS = 256, THREADS = 2;

    /** A model to measure: its config and the dtype its weights are stored in. */
    record Model(String name, Map<String, Object> config, DType dtype) {}

    static final List<Model> MODELS = List.of(
            new Model("llama-f32", llama(), DType.FLOAT32), new Model("llama-bf16", llama(), DType.BFLOAT16),
            new Model("gpt2-f32", gpt2(), DType.FLOAT32), new Model("gpt2-bf16", gpt2(), DType.BFLOAT16));

    private static Map<String, Object> llama() { return PeerModels.llama(32000, 768, 12, 12, 4, 2048, 2048); }

    private static Map<String, Object> gpt2() { return PeerModels.gpt2(50257, 768, 12, 12, 1024); }

    /** One generation's rates: end to end and of the decoding steps alone. */
    record Rates(double endToEnd, double decode) {
        static Rates of(double promptSeconds, double decodeSeconds) {
            return new Rates(NEW_TOKENS / (promptSeconds + decodeSeconds), (NEW_TOKENS - 1) / decodeSeconds);
        }
    }

    public static void main(String[] args) throws IOException {
        PhysicalCoreExecutor.overrideThreadCount(THREADS);                           // jlama's pool; before any jlama op
        if (args.length > 0 && args[0].equals("profile")) {
            profile(model(args.length > 1 ? args[1] : "llama-f32"));
            return;
        }
        if (args.length == 3 && args[0].equals("write")) {                    // write MODEL DIR
            PeerModels.write(Path.of(args[2]), model(args[1]).config(), model(args[1]).dtype(), 1);
            return;
        }
        if (args.length == 4 && args[0].equals("memory")) {                   // memory MODEL ENGINE DIR
            PeakMemory.measure(model(args[1]), args[2], Path.of(args[3]));
            return;
        }
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        List<Model> models = args.length > 1 ? Arrays.stream(args, 1, args.length).map(JlamaCompareReport::model).toList() : MODELS;
        System.out.printf(Locale.ROOT, "batch 1, prompt %d, %d new tokens, greedy; Symbiont on %d threads, jlama on %d; %d rounds after a warm-up%n",
                PROMPT, NEW_TOKENS, CpuThreads.parallelism(), PhysicalCoreExecutor.instance.get().getCoreCount(), reps);
        System.out.printf(Locale.ROOT, "%-11s %12s %12s %7s %14s %14s %7s%n", "model", "symbiont t/s", "jlama t/s", "ratio",
                "sym decode t/s", "jlama decode", "ratio");
        for (Model m : models) measure(m, reps);
    }

    private static Model model(String name) {
        return MODELS.stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("jlama-compare: unknown model '" + name + "'; known: "
                        + MODELS.stream().map(Model::name).toList()));
    }

    private static void measure(Model m, int reps) throws IOException {
        Path dir = Files.createTempDirectory("jlama-compare-");
        try {
            PeerModels.write(dir, m.config(), m.dtype(), 1);
            long[] prompt = prompt(((Number) m.config().get("vocab_size")).intValue());
            CausalLM symbiont = PretrainedModels.load(dir).model();
            try (JlamaPeer jlama = new JlamaPeer(dir)) {
                long[] ours = symbiont(symbiont, prompt, null);
                long[] theirs = jlama.greedy(prompt, NEW_TOKENS).ids();
                int agree = agreeing(prompt.length, ours, theirs);
                List<Rates> ourRates = new ArrayList<>(), theirRates = new ArrayList<>();
                for (int r = 0; r < reps; r++) {
                    if (r % 2 == 0) {
                        ourRates.add(timed(symbiont, prompt));
                        theirRates.add(timed(jlama, prompt));
                    } else {
                        theirRates.add(timed(jlama, prompt));
                        ourRates.add(timed(symbiont, prompt));
                    }
                }
                double ourEnd = median(ourRates, Rates::endToEnd), theirEnd = median(theirRates, Rates::endToEnd);
                double ourDecode = median(ourRates, Rates::decode), theirDecode = median(theirRates, Rates::decode);
                System.out.printf(Locale.ROOT, "%-11s %12.2f %12.2f %6.2fx %14.2f %14.2f %6.2fx   (%d/%d tokens agree%s)%n", m.name(), ourEnd,
                        theirEnd, ourEnd / theirEnd, ourDecode, theirDecode, ourDecode / theirDecode, agree, NEW_TOKENS,
                        agree == NEW_TOKENS ? "" : "; " + parting(symbiont, ours, theirs, prompt.length + agree));
            }
        } finally {
            delete(dir);
        }
    }

    /** Symbiont's greedy generation of {@link #NEW_TOKENS} after {@code prompt}, no stop id; its stats into {@code stats[0]} when given. */
    static long[] symbiont(CausalLM lm, long[] prompt, GenerationStats[] stats) {
        long[] ids = Arrays.copyOf(prompt, prompt.length + NEW_TOKENS);
        int[] n = {prompt.length};
        GenerationConfig greedy = GenerationConfig.DEFAULT.withSampling(Sampling.greedy()).withMaxNewTokens(NEW_TOKENS);
        GenerationStats s = lm.generate(prompt, greedy, new Generator(0), id -> ids[n[0]++] = id);
        if (stats != null) stats[0] = s;
        return ids;
    }

    private static Rates timed(CausalLM lm, long[] prompt) {
        GenerationStats[] s = new GenerationStats[1];
        symbiont(lm, prompt, s);
        return Rates.of(s[0].promptSeconds(), s[0].decodeSeconds());
    }

    private static Rates timed(JlamaPeer jlama, long[] prompt) {
        JlamaPeer.Generation g = jlama.greedy(prompt, NEW_TOKENS);
        return Rates.of(g.promptSeconds(), g.decodeSeconds());
    }

    /** Symbiont's profiler table over one generation, after two of warm-up. */
    private static void profile(Model m) throws IOException {
        Path dir = Files.createTempDirectory("jlama-profile-");
        try {
            PeerModels.write(dir, m.config(), m.dtype(), 1);
            long[] prompt = prompt(((Number) m.config().get("vocab_size")).intValue());
            CausalLM lm = PretrainedModels.load(dir).model();
            for (int i = 0; i < 2; i++) symbiont(lm, prompt, null);
            try (ProfilerSession session = Profiler.start(m.name() + ", " + NEW_TOKENS + " new tokens")) {
                symbiont(lm, prompt, null);
                System.out.println(session.report().table());
            }
        } finally {
            delete(dir);
        }
    }

    /** Removes the model directory {@link PeerModels#write} filled (files only, no subfolders). */
    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) Files.delete(f);
        }
        Files.delete(dir);
    }

    static long[] prompt(int vocab) {
        Generator g = new Generator(32);
        long[] ids = new long[PROMPT];
        for (int i = 0; i < PROMPT; i++) ids[i] = g.nextInt(vocab);
        return ids;
    }

    /**
     * Where the continuations part: Symbiont's logits at that position (a full forward over the
     * shared prefix, no cache) for its token and for jlama's, and the gap relative to the largest
     * logit — a near-tie when it is about the two engines' float32 rounding.
     */
    private static String parting(CausalLM lm, long[] ours, long[] theirs, int at) {
        float[] logits;
        try (var off = dev.symbiont.core.autograd.GradMode.disabled()) {
            Tensor out = lm.forward(Tensor.fromArray(Arrays.copyOf(ours, at), 1, at));
            logits = out.select(1, at - 1).reshape(-1).toFloatArray();
        }
        float mine = logits[(int) ours[at]], theirsLogit = logits[(int) theirs[at]], top = 0;
        for (float l : logits) top = Math.max(top, Math.abs(l));
        return String.format(Locale.ROOT, "at token %d Symbiont's logits give its %d %.4f and jlama's %d %.4f, %.1e of the largest",
                at - PROMPT, ours[at], mine, theirs[at], theirsLogit, (mine - theirsLogit) / top);
    }

    /** How many new tokens agree before the first difference. */
    private static int agreeing(int from, long[] a, long[] b) {
        int n = 0;
        while (from + n < a.length && a[from + n] == b[from + n]) n++;
        return n;
    }

    private static double median(List<Rates> rates, java.util.function.ToDoubleFunction<Rates> of) {
        double[] v = rates.stream().mapToDouble(of).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
