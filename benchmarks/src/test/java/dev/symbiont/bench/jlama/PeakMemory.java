package dev.symbiont.bench.jlama;

import dev.symbiont.models.CausalLM;
import dev.symbiont.models.PretrainedModels;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One engine's memory over a generation, in a JVM of its own: the directory loaded, one greedy
 * generation of the comparison's shape, then the process's peak resident set ({@code VmHWM} of
 * /proc/self/status: the Java heap the JVM touched, jlama's off-heap buffers and the pages of the
 * memory-mapped checkpoint it read) and, for Symbiont, the heap still live after a collection (the
 * model and its KV cache). {@code benchmarks/jlama-compare.sh memory} runs it once per engine and
 * model with the same JVM options.
 */
final class PeakMemory {
    private PeakMemory() {}

    /** Prints one line: model, engine, peak RSS in MiB and (Symbiont) live heap in MiB. */
    static void measure(JlamaCompareReport.Model m, String engine, Path dir) throws IOException {
        long[] prompt = JlamaCompareReport.prompt(((Number) m.config().get("vocab_size")).intValue());
        String live = "-";
        switch (engine) {
            case "symbiont" -> {
                CausalLM lm = PretrainedModels.load(dir).model();
                JlamaCompareReport.symbiont(lm, prompt, null);
                live = String.format(Locale.ROOT, "%.0f", liveHeapMiB());
            }
            case "jlama" -> {
                try (JlamaPeer jlama = new JlamaPeer(dir)) {
                    jlama.greedy(prompt, JlamaCompareReport.NEW_TOKENS);
                }
            }
            default -> throw new IllegalArgumentException("jlama-compare memory: engine must be symbiont or jlama, got '" + engine + "'");
        }
        System.out.printf(Locale.ROOT, "%-11s %-9s peak RSS %6.0f MiB   live heap %s MiB%n", m.name(), engine, peakRssMiB(), live);
    }

    private static double liveHeapMiB() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
    }

    /** VmHWM, the resident set's high-water mark, from /proc/self/status. */
    private static double peakRssMiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
        throw new IOException("/proc/self/status has no VmHWM line");
    }
}
