package dev.symbiont.bench;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.memory.MemoryMeasure;
import dev.symbiont.nn.Checkpointed;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.ResidualMlpBlock;
import dev.symbiont.nn.Sequential;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Peak memory of one training step (forward + backward) of 8 residual MLP blocks, plain, with
 * activation checkpointing, with bfloat16 autocast, and with both; plus what the forward
 * leaves alive for backward and the median step time. Memory comes from the backend's own
 * accounting in exact mode (a full GC before every counted allocation), so it is the live set
 * a reference-counted runtime would hold; times are measured in a separate, normal-mode loop.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.TrainingMemoryReport}
 */
public final class TrainingMemoryReport {
    static final int BLOCKS = 8, DIM = 256, HIDDEN = 1024, ROWS = 2048;

    public static void main(String[] args) {
        Backend backend = Backends.current();
        System.out.printf(Locale.ROOT, "backend=%s blocks=%d dim=%d hidden=%d rows=%d (batch x seq)%n", backend.name(), BLOCKS, DIM, HIDDEN, ROWS);
        System.out.printf(Locale.ROOT, "%-26s %14s %16s %12s%n", "config", "peak_MiB", "kept_by_fwd_MiB", "step_ms");
        Tensor x = Tensor.randn(new Generator(1), ROWS, DIM);
        for (String config : List.of("float32", "checkpointing", "bf16 autocast", "checkpointing+bf16")) {
            boolean ckpt = config.startsWith("checkpointing");
            DType low = config.contains("bf16") ? DType.BFLOAT16 : null;
            Sequential model = stack(ckpt);
            long kept = keptByForward(model, x, low);
            long peak = peakOfStep(model, x, low, backend);
            double ms = medianStepMillis(model, x, low);
            System.out.printf(Locale.ROOT, "%-26s %14.1f %16.1f %12.1f%n", config, peak / 1048576.0, kept / 1048576.0, ms);
        }
    }

    static Sequential stack(boolean checkpointed) {
        Generator g = new Generator(42);
        List<Layer> layers = new ArrayList<>();
        for (int i = 0; i < BLOCKS; i++) {
            Layer block = new ResidualMlpBlock(DIM, HIDDEN, 0, g);
            layers.add(checkpointed ? new Checkpointed(block) : block);
        }
        return new Sequential(layers);
    }

    static Tensor loss(Sequential model, Tensor x, DType low) {
        if (low == null) return model.forward(x).square().mean();
        try (var scope = Autocast.enable(low)) {
            return model.forward(x).square().mean();
        }
    }

    static void step(Sequential model, Tensor x, DType low) {
        loss(model, x, low).backward();
        model.zeroGrad();
    }

    static long peakOfStep(Sequential model, Tensor x, DType low, Backend backend) {
        step(model, x, low); // warm: lazily created state does not count
        long peak = MemoryMeasure.peakAbove(backend, () -> loss(model, x, low).backward());
        model.zeroGrad();
        return peak;
    }

    static long keptByForward(Sequential model, Tensor x, DType low) {
        return MemoryMeasure.retainedBy(x.backend(), () -> loss(model, x, low));
    }

    static double medianStepMillis(Sequential model, Tensor x, DType low) {
        for (int i = 0; i < 3; i++) step(model, x, low);
        double[] ms = new double[7];
        for (int i = 0; i < ms.length; i++) {
            long t0 = System.nanoTime();
            step(model, x, low);
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return ms[ms.length / 2];
    }
}
