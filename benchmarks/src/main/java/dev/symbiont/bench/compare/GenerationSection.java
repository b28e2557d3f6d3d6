package dev.symbiont.bench.compare;

import java.util.List;

/** Generation per token against the context: the KV cache against the recurrent state. */
final class GenerationSection {
    private GenerationSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("generation", "Generation: KV cache against recurrent state");
        b.text("Batch 1: the context is prefilled in one call, then tokens are decoded one at a time (median time of one). The state is what "
                + "decoding keeps: attention's KV cache grows with the context and each new token attends over all of it; Mamba's conv "
                + "windows and SSM states stay the same size.");
        Sweep.add(b, r, GenerationSuite.SUITE, "context", "context", List.of(new Sweep.Metric("ms_per_token", "ms per token", true, true),
                new Sweep.Metric("state_kib", "state KiB", true, true), new Sweep.Metric("prefill_ms", "prefill ms", false, true),
                new Sweep.Metric("decode_tokens_per_s", "decoded tokens/s", false, false)), Titles::of);
        return b.build();
    }
}
