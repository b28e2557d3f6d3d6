package dev.symbiont.cuda.device;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.Optimizer;

import java.util.Locale;

/**
 * One GPT training step on a real GPU (run by {@code gpu-check.sh gpt-step}, not a test), the
 * issue's "GPT training step against PyTorch eager on the same model": GPT-2 small's shape (d 768,
 * 12 heads, 4·d MLP with exact GELU, LayerNorm, learned positions, tied embeddings, vocabulary
 * 50257), forward, cross-entropy, backward, AdamW step (lr 3e-4, weight decay 0.01) and zeroed
 * gradients, in float32 (TF32 off, as torch's default) and under bfloat16 autocast, timed as
 * {@link AttentionBenchmark} times its calls. Lines: {@code symbiont gpt-<fp32|bf16> <batch> <seq>
 * <ms per step> -}, which {@code gpt_step_torch.py} prints for the same model in
 * PyTorch and {@code pair_table.py} joins. Arguments: batch (8), seq (512) and layers (12);
 * {@code --interpreted} first runs it on the PTX interpreter (a smoke run: give small sizes, e.g.
 * {@code --interpreted 1 8 1}, which also shrinks the model to d 64).
 */
public final class GptStepBenchmark {
    private static final int VOCAB = 50257;

    private GptStepBenchmark() {}

    public static void main(String[] args) {
        BenchmarkArgs a = BenchmarkArgs.parse(args, 8, 512, 12);
        int batch = a.get(0), seq = a.get(1), layers = a.get(2);
        int d = a.interpreted() ? 64 : 768, heads = a.interpreted() ? 2 : 12, vocab = a.interpreted() ? 512 : VOCAB;
        CudaBackend backend = a.backend();
        System.out.println("# " + backend + ", GPT d " + d + ", " + layers + " layers, " + heads + " heads, vocab " + vocab
                + ", batch " + batch + " x seq " + seq);
        try (Scope s = Backends.use(backend)) {
            Generator g = new Generator(42);
            Gpt model = new Gpt(GptConfig.of(vocab, d, layers, heads, seq), g);
            Optimizer opt = new AdamW(model.parameterGroups(0.01), AdamW.options(3e-4));
            long[] ids = new long[batch * seq], targets = new long[batch * seq];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = (i * 7919L + 3) % vocab;
                targets[i] = (i * 7919L + 7922) % vocab;
            }
            Tensor x = Tensor.fromArray(ids, batch, seq), y = Tensor.fromArray(targets, batch, seq);
            Runnable step = () -> {
                model.loss(x, y).backward();
                opt.step();
                opt.zeroGrad();
            };
            print("gpt-fp32", batch, seq, AttentionBenchmark.time(backend, step));
            double bf16 = AttentionBenchmark.time(backend, () -> {
                try (Scope amp = Autocast.enable(DType.BFLOAT16)) {
                    step.run();
                }
            });
            print("gpt-bf16", batch, seq, bf16);
        }
        backend.emptyCache();
    }

    private static void print(String what, int batch, int seq, double ms) {
        System.out.println(String.format(Locale.ROOT, "symbiont %s %d %d %.3f -", what, batch, seq, ms));
    }
}
