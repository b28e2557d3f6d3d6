package dev.symbiont.bench.compare;

import java.util.List;

/** FlashAttention against materialised attention: memory and time against the sequence length. */
final class AttentionSection {
    private AttentionSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("attention", "Attention: flash against materialised");
        b.text("Causal scaled-dot-product attention, forward + backward, batch 1, " + AttentionSuite.HEADS + " heads of " + AttentionSuite.HEAD_DIM
                + ". \"reference\" materialises the L×L scores (the attention family forced to its reference); \"flash\" is the backend's "
                + "tiled kernel with an online softmax. Peak memory is above q, k, v and the output gradient.");
        Sweep.add(b, r, AttentionSuite.SUITE, "seq", "sequence length", List.of(new Sweep.Metric("peak_mib", "peak MiB", true, true),
                new Sweep.Metric("ms", "ms forward + backward", true, true)), Titles::of);
        return b.build();
    }
}
