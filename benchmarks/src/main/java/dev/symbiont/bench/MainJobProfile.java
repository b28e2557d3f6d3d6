package dev.symbiont.bench;

import com.sun.management.ThreadMXBean;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.GradClip;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * The profiler's table for the training step of {@code symbiont train}'s default model (a char
 * GPT: vocab 73, 4 layers, d 128, 4 heads, context 128, batch 32, AdamW with clipping, as
 * TrainCommand builds it), after a warm-up: per op, per category, the forward / backward /
 * optimizer split (the {@code step.*} rows' total time) and the heap bytes allocated per step
 * by all threads.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -XX:+UseG1GC -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.MainJobProfile [warmup] [steps]}
 */
public final class MainJobProfile {
    static final int VOCAB = 73, D_MODEL = 128, LAYERS = 4, HEADS = 4, CONTEXT = 128, BATCH = 32;

    public static void main(String[] args) {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 30, steps = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Gpt model = new Gpt(GptConfig.of(VOCAB, D_MODEL, LAYERS, HEADS, CONTEXT), new Generator(0), 0.08);
        AdamW optimizer = new AdamW(model.parameterGroups(0.1), AdamW.options(1e-3).betas(0.9, 0.99));
        Random random = new Random(1);
        for (int i = 0; i < warmup; i++) step(model, optimizer, random);
        long bytesBefore = allocatedBytes();
        long start = System.nanoTime();
        ProfileReport report;
        try (ProfilerSession session = Profiler.start("main job, " + steps + " steps")) {
            for (int i = 0; i < steps; i++) step(model, optimizer, random);
            report = session.report();
        }
        double ms = (System.nanoTime() - start) / 1e6 / steps;
        long bytes = (allocatedBytes() - bytesBefore) / steps;
        System.out.println(report.table());
        System.out.printf(Locale.ROOT, "%.1f ms per step (%.0f tokens/s with the profiler on), %.1f MiB allocated per step%n",
                ms, BATCH * CONTEXT / ms * 1e3, bytes / 1048576.0);
    }

    private static void step(Gpt model, AdamW optimizer, Random random) {
        long[] ids = new long[BATCH * (CONTEXT + 1)];
        for (int i = 0; i < ids.length; i++) ids[i] = random.nextInt(VOCAB);
        Tensor all = Tensor.fromArray(ids, BATCH, CONTEXT + 1);
        Tensor input = all.narrow(1, 0, CONTEXT).contiguous(), target = all.narrow(1, 1, CONTEXT).contiguous();
        Tensor loss = Profiler.time("step.forward", OpCategory.OTHER, () -> model.loss(input, target));
        Profiler.time("step.backward", OpCategory.OTHER, () -> loss.backward());
        Profiler.time("step.optimizer", OpCategory.OTHER, () -> {
            GradClip.clipGradNorm(model.trainableParameters(), 1.0);
            optimizer.step();
            optimizer.zeroGrad();
        });
        loss.item();
    }

    /** Heap bytes allocated so far by every live thread (the pool's workers included). */
    private static long allocatedBytes() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        return Arrays.stream(threads.getThreadAllocatedBytes(threads.getAllThreadIds())).filter(b -> b > 0).sum();
    }
}
