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
        if (r.backends().stream().anyMatch(backend -> !r.seriesNames(backend, AttentionSuite.HEADS_SUITE).isEmpty())) {
            b.text("The same kernels at one length with a width of " + AttentionSuite.HEADS_WIDTH + " split into more, narrower heads: "
                    + "the same FLOPs, so a time that stays flat means the heads run as independent work.");
            Sweep.add(b, r, AttentionSuite.HEADS_SUITE, "heads", "heads", List.of(new Sweep.Metric("ms", "ms forward + backward", false, false)),
                    Titles::of);
        }
        return b.build();
    }
}
