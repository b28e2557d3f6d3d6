package dev.symbiont.bench.compare;

import java.util.List;

/**
 * How much {@code compare} measures: the sizes swept by each suite, the timing repetitions and
 * the cap on one step's time. {@link #quick()} fits about 5 minutes and {@link #full()} about
 * 30 on two cores of a current x86 server (docs: the estimate is printed with the plan);
 * {@link #tiny()} is for tests.
 *
 * @param name            the preset's name, recorded with the run
 * @param families        the language-model families measured
 * @param seqLengths      training-step sequence lengths at batch 1
 * @param batches         training-step batches at {@code batchSeq} tokens each
 * @param batchSeq        the sequence length of the batch sweep
 * @param contexts        generation contexts (tokens prefilled before decoding)
 * @param decodeTokens    tokens decoded one at a time at each context (their median time counts)
 * @param imageSides      image sides of the vision families' training step
 * @param imageBatch      images per vision training step
 * @param profileSeq      the sequence length of the profiled language-model steps
 * @param scanLengths     lengths L of the linear recurrence
 * @param scanChannels    channels of the recurrence (columns scanned side by side)
 * @param experts         expert counts E of the MoE sweep (at top-k {@link LmFamily#TOP_K})
 * @param topKs           top-k of the MoE sweep (at E = {@link LmFamily#EXPERTS})
 * @param moeTokens       tokens through the MoE layer
 * @param attentionLengths sequence lengths of the attention comparison
 * @param gemmSizes       square GEMM sizes; the largest gives the roofline's peak
 * @param streamFloats    floats per operand of the streaming kernel (well past the last-level cache)
 * @param warmups         untimed calls before each timing
 * @param warmSeconds     how long a roofline kernel (milliseconds a call) runs before it is timed, so the JIT has compiled it
 * @param reps            timed calls at least (their median counts)
 * @param timedSeconds    fast work is timed over more calls, until at least this long (at most {@link Timing#MAX_CALLS})
 * @param exactMemory     peak memory counted exactly (a full GC before each allocation) rather than with garbage included
 * @param maxStepSeconds  a longer size is skipped when the last one's step took longer than this divided by its expected growth
 */
public record Sizes(String name, List<LmFamily> families, int[] seqLengths, int[] batches, int batchSeq, int[] contexts, int decodeTokens,
                    int[] imageSides, int imageBatch, int profileSeq, int[] scanLengths, int scanChannels, int[] experts, int[] topKs,
                    int moeTokens, int[] attentionLengths, int[] gemmSizes, int streamFloats, int warmups, double warmSeconds, int reps, double timedSeconds, boolean exactMemory,
                    double maxStepSeconds) {

    /** About 5 minutes on 2 cores. */
    public static Sizes quick() {
        return new Sizes("quick", List.of(LmFamily.values()), new int[] {256, 512, 1024, 2048}, new int[] {1, 2, 4}, 256,
                new int[] {128, 512, 2048}, 8, new int[] {28, 56}, 8, 256, new int[] {256, 1024, 4096}, 256, new int[] {2, 4, 8},
                new int[] {1, 2, 4}, 2048, new int[] {256, 512, 1024, 2048}, new int[] {128, 256, 512}, 1 << 23, 2, 0.5, 3, 0.3, true, 4);
    }

    /**
     * About 10 minutes on 2 cores: every point timed for 2 s at least, so a slow phase of this
     * machine of a second or two (seen on shared VMs) does not become the median.
     */
    public static Sizes full() {
        return new Sizes("full", List.of(LmFamily.values()), new int[] {256, 512, 1024, 2048, 4096, 8192}, new int[] {1, 2, 4, 8}, 512,
                new int[] {128, 512, 2048, 8192}, 16, new int[] {28, 56, 112}, 16, 512, new int[] {256, 512, 1024, 2048, 4096, 8192}, 256,
                new int[] {2, 4, 8, 16}, new int[] {1, 2, 4}, 4096, new int[] {256, 512, 1024, 2048, 4096}, new int[] {128, 256, 512, 1024},
                1 << 24, 3, 1, 7, 2.0, true, 20);
    }

    /** Seconds of work for the tests: the smallest sizes every suite takes, no exact memory counting. */
    public static Sizes tiny() {
        return new Sizes("tiny", List.of(LmFamily.GPT, LmFamily.MAMBA), new int[] {16, 32}, new int[] {1, 2}, 16, new int[] {8, 16}, 2,
                new int[] {28}, 2, 16, new int[] {16, 64}, 8, new int[] {2, 4}, new int[] {1, 2}, 16, new int[] {16, 32},
                new int[] {32, 64}, 1 << 16, 0, 0, 1, 0, false, 60);
    }

    /** The preset named {@code name}: quick, full or tiny. */
    public static Sizes named(String name) {
        return switch (name) {
            case "quick" -> quick();
            case "full" -> full();
            case "tiny" -> tiny();
            default -> throw new IllegalArgumentException("unknown sizes '" + name + "': quick, full or tiny");
        };
    }

    /** These sizes for the given families only. */
    public Sizes withFamilies(List<LmFamily> only) {
        if (only.isEmpty()) throw new IllegalArgumentException("Sizes.withFamilies: no family given");
        return new Sizes(name, List.copyOf(only), seqLengths, batches, batchSeq, contexts, decodeTokens, imageSides, imageBatch, profileSeq,
                scanLengths, scanChannels, experts, topKs, moeTokens, attentionLengths, gemmSizes, streamFloats, warmups, warmSeconds, reps, timedSeconds, exactMemory,
                maxStepSeconds);
    }

    /** The largest sequence length any language-model suite reads (the models' maxSeq). */
    public int longestSequence() {
        int m = Math.max(batchSeq, profileSeq);
        for (int s : seqLengths) m = Math.max(m, s);
        for (int c : contexts) m = Math.max(m, c + decodeTokens);
        return m;
    }
}
