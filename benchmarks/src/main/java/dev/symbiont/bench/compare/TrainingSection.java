package dev.symbiont.bench.compare;

import java.util.List;

/** The language-model families' training step against the sequence length and the batch, with their scaling exponents. */
final class TrainingSection {
    private TrainingSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("training", "Training step against sequence length and batch");
        b.text("One training step (forward, cross-entropy, backward, AdamW) of each family at about 0.4 M parameters, width 128, byte vocabulary: "
                + "GPT (2 blocks, 4 heads, RoPE; the CPU backend's FlashAttention), Mamba-1 and Mamba-2 (3 blocks), and the MoE GPT with 8 "
                + "SwiGLU experts, top-2, at GPT's active parameters (expert hidden " + LmFamily.expertHidden(LmFamily.TOP_K) + ") and at its total "
                + "parameters (expert hidden " + LmFamily.expertHidden(LmFamily.EXPERTS) + "). Peak memory is above the model, its gradients and "
                + "the optimizer state, counted by the backend's allocator.");
        Sweep.add(b, r, TrainingSuite.SEQ, "seq", "sequence length", List.of(new Sweep.Metric("ms", "ms per step", true, true),
                new Sweep.Metric("peak_mib", "peak MiB", true, true), new Sweep.Metric("tokens_per_s", "tokens/s", false, false),
                new Sweep.Metric("params", "parameters", false, false)), Titles::of);
        b.text("Against the batch, at a fixed length: time per step should grow linearly (exponent 1) once the batch fills the cores; "
                + "below that, a larger batch is free throughput.");
        Sweep.add(b, r, TrainingSuite.BATCH, "batch", "batch", List.of(new Sweep.Metric("ms", "ms per step", false, true),
                new Sweep.Metric("tokens_per_s", "tokens/s", true, false)), Titles::of);
        return b.build();
    }
}
