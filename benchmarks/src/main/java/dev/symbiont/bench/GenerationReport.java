package dev.symbiont.bench;

import dev.symbiont.bench.compare.StateBytes;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.PositionKind;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.block.DecodingState;

import java.util.Arrays;
import java.util.Locale;

/**
 * Generation cost per token against the context already read, GPT vs Mamba of about equal
 * parameters (batch 1, d_model 128, vocab 256): at each context the prompt is prefilled in one
 * call, then a few tokens are decoded one at a time. Reported per model: the decoding state's
 * bytes after the prefill (GPT: its KV cache, 2 · layers · context · d_model floats; Mamba: its
 * conv windows and SSM states, counted from the tensors) and the median time of one decoded token.
 * GPT's cache grows with the context and every token attends over all of it; Mamba's state does not.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar
 * dev.symbiont.bench.GenerationReport [context ...]} (default 128 512 2048 8192).
 */
public final class GenerationReport {
    static final int VOCAB = 256, D_MODEL = 128, HEADS = 4, GPT_LAYERS = 2, MAMBA_LAYERS = 3, TOKENS = 16;

    public static void main(String[] args) {
        int[] contexts = args.length == 0 ? new int[] {128, 512, 2048, 8192} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        int longest = Arrays.stream(contexts).max().orElseThrow();
        // RoPE, so GPT carries no position table sized by the longest context.
        Gpt gpt = new Gpt(GptConfig.of(VOCAB, D_MODEL, GPT_LAYERS, HEADS, longest + TOKENS + 1).withPositions(PositionKind.ROPE),
                new Generator(1));
        MambaLM mamba = new MambaLM(MambaLMConfig.of(VOCAB, D_MODEL, MAMBA_LAYERS), new Generator(1));
        System.out.printf(Locale.ROOT, "batch 1, d_model %d, vocab %d; gpt %d layers (%d params), mamba %d layers (%d params); %d tokens per context%n",
                D_MODEL, VOCAB, GPT_LAYERS, gpt.parameterCount(), MAMBA_LAYERS, mamba.parameterCount(), TOKENS);
        System.out.printf(Locale.ROOT, "%8s %14s %14s %12s %12s%n", "context", "gpt_state_KiB", "mamba_state_KiB", "gpt_ms/tok", "mamba_ms/tok");
        try (var noGrad = GradMode.disabled()) {
            gpt.eval();
            mamba.eval();
            for (int i = 0; i < 3; i++) {                                         // warm-up: JIT the prefill and decoding paths
                measure(gpt, 256);
                measure(mamba, 256);
            }
            for (int context : contexts) {
                double[] g = measure(gpt, context), m = measure(mamba, context);
                System.out.printf(Locale.ROOT, "%8d %14.1f %14.1f %12.2f %12.2f%n", context, g[0] / 1024, m[0] / 1024, g[1], m[1]);
            }
        }
    }

    /** {state bytes after a prefill of {@code context} tokens, median ms of one decoded token after it}. */
    static double[] measure(CausalLM model, int context) {
        Generator g = new Generator(context);
        DecodingState state = model.newState(context + TOKENS);
        model.forward(Tensor.fromArray(randomIds(g, context), 1, context), state);
        long bytes = StateBytes.of(state);
        double[] ms = new double[TOKENS];
        for (int t = 0; t < TOKENS; t++) {
            Tensor next = Tensor.fromArray(randomIds(g, 1), 1, 1);
            long t0 = System.nanoTime();
            model.forward(next, state).toFloatArray();                             // read back: the token's work is done
            ms[t] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return new double[] {bytes, ms[ms.length / 2]};
    }

    private static long[] randomIds(Generator g, int n) {
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) ids[i] = g.nextInt(VOCAB);
        return ids;
    }
}
