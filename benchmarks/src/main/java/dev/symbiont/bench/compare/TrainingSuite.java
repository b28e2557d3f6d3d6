package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.backend.Backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The language-model families' training step (forward, loss, backward, AdamW) against the
 * sequence length at batch 1 ({@code train.seq}) and against the batch at a fixed length
 * ({@code train.batch}): median time, and against the length the peak memory above the model,
 * its gradients and the optimizer state (against the batch it only multiplies the activations). The report fits each family's scaling exponent to them. A length whose step would pass
 * the cap (from the last length's time and the family's expected growth: L² with attention,
 * L without) is skipped and noted.
 */
final class TrainingSuite implements Suite {
    static final String SEQ = "train.seq", BATCH = "train.batch";

    @Override
    public String id() { return "training"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        for (LmFamily f : sizes.families()) {
            for (int seq : sizes.seqLengths()) {
                out.add(new Measurement(SEQ, f.id(), seq, "training: " + f.id() + " L=" + seq, c -> {
                    String skip = c.tooSlow(SEQ, f.id(), seq, f.attends() ? 2 : 1);
                    return List.of(skip != null ? c.missing(SEQ, f.id(), seq, skip) : step(c, SEQ, f, 1, seq, seq, true));
                }));
            }
        }
        for (LmFamily f : sizes.families()) {
            for (int batch : sizes.batches()) {
                out.add(new Measurement(BATCH, f.id(), batch, "training: " + f.id() + " batch " + batch, c -> {
                    String skip = c.tooSlow(BATCH, f.id(), batch, 1);
                    return List.of(skip != null ? c.missing(BATCH, f.id(), batch, skip) : step(c, BATCH, f, batch, sizes.batchSeq(), batch, false));
                }));
            }
        }
        return out;
    }

    /** One step's time, and its peak memory when {@code memory} (exact counting costs a collection per new high: seconds a point). */
    private static Point step(MeasureContext c, String suite, LmFamily f, int batch, int seq, double x, boolean memory) {
        TrainingStep step = TrainingStep.of(f.create(seq, new Generator(1)), batch, seq, new Generator(2));
        double s = c.stepSeconds(f.id(), step);
        Map<String, Double> values = new java.util.HashMap<>(Map.of("ms", s * 1e3, "tokens_per_s", batch * seq / s,
                "params", (double) step.model().parameterCount()));
        if (memory) values.put("peak_mib", MeasureContext.mib(c.peakBytes(step)));
        return c.point(suite, f.id(), x, values);
    }
}
