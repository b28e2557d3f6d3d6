package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.block.DecodingState;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Generation against the context already read ({@code generate}), batch 1: the prompt prefilled
 * in one call (its time), then tokens decoded one at a time (the median time of one, read back
 * so its work is done), and the decoding state's bytes after the prefill — attention's KV cache
 * (2 · layers · context · d_model floats, growing with the context) against a state-space
 * model's conv windows and SSM states (the same at every context).
 */
final class GenerationSuite implements Suite {
    static final String SUITE = "generate";

    @Override
    public String id() { return "generation"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        for (LmFamily f : sizes.families()) {
            for (int context : sizes.contexts()) {
                out.add(new Measurement(SUITE, f.id(), context, "generation: " + f.id() + " context " + context,
                        c -> List.of(measure(c, f, context))));
            }
        }
        return out;
    }

    private static Point measure(MeasureContext c, LmFamily f, int context) {
        int tokens = c.sizes().decodeTokens();
        CausalLM model = f.create(context + tokens + 1, new Generator(1));
        model.eval();
        Generator g = new Generator(context);
        try (var noGrad = GradMode.disabled()) {
            Tensor prompt = TrainingStep.tokens(g, 1, context, model.vocab());
            for (int i = 0; i < c.sizes().warmups(); i++) {                       // the JIT sees a prefill and a decoded token
                DecodingState warm = model.newState(context + tokens + 1);
                model.forward(prompt.narrow(1, 0, Math.min(context, 16)), warm);
                model.forward(TrainingStep.tokens(g, 1, 1, model.vocab()), warm).toFloatArray();
            }
            DecodingState state = model.newState(context + tokens + 1);
            long t0 = System.nanoTime();
            model.forward(prompt, state).toFloatArray();
            double prefill = (System.nanoTime() - t0) / 1e9;
            long bytes = StateBytes.of(state);
            double[] decode = new double[tokens];
            for (int t = 0; t < tokens; t++) {
                Tensor next = TrainingStep.tokens(g, 1, 1, model.vocab());
                long s0 = System.nanoTime();
                model.forward(next, state).toFloatArray();
                decode[t] = (System.nanoTime() - s0) / 1e9;
            }
            double perToken = Timing.median(decode);
            return c.point(SUITE, f.id(), context, Map.of("ms_per_token", perToken * 1e3, "state_kib", bytes / 1024.0,
                    "prefill_ms", prefill * 1e3, "prefill_tokens_per_s", context / prefill, "decode_tokens_per_s", 1 / perToken));
        }
    }
}
