package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.mamba.MambaMixer;

import java.util.Locale;

/**
 * Mamba-1's decoding step at {@link GenerationReport}'s size (batch 1, d_model 128, 3 layers, N 16):
 * one token after a prefill of 128, its mixers stepping by the fused selective scan of one position
 * ({@link MambaMixer.Step#FUSED}) against the recurrence's tensor ops ({@link MambaMixer.Step#TENSOR_OPS}).
 * Both in one JVM, alternating rounds of 16 timed tokens each; medians of the rounds' best of three, ms per token.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.MambaStepProfile [rounds]}
 */
public final class MambaStepProfile {
    private static final int CONTEXT = 128, TOKENS = 16;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        MambaLM lm = new MambaLM(MambaLMConfig.of(GenerationReport.VOCAB, GenerationReport.D_MODEL, GenerationReport.MAMBA_LAYERS),
                new Generator(1));
        lm.eval();
        try (var noGrad = GradMode.disabled()) {
            double[][] t = BestOfThree.alternate(5, rounds, () -> bestOfThree(lm, MambaMixer.Step.FUSED),
                    () -> bestOfThree(lm, MambaMixer.Step.TENSOR_OPS));
            System.out.printf(Locale.ROOT, "Mamba-1 decoding, %d layers, after %d tokens: fused step %.3f ms/token, tensor ops %.3f ms/token%n",
                    GenerationReport.MAMBA_LAYERS, CONTEXT, BestOfThree.median(t[0]), BestOfThree.median(t[1]));
        }
    }

    /** The fastest of three decodes, ms per token. */
    private static double bestOfThree(MambaLM lm, MambaMixer.Step how) {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < 3; i++) best = Math.min(best, decode(lm, how));
        return best;
    }

    /** A prefill of {@link #CONTEXT} tokens, then {@link #TOKENS} single tokens: ms per token of those alone. */
    private static double decode(MambaLM lm, MambaMixer.Step how) {
        for (Module m : lm.modules()) if (m instanceof MambaMixer mixer) mixer.step(how);
        Generator g = new Generator(2);
        DecodingState state = lm.newState(CONTEXT + TOKENS);
        lm.forward(ids(g, CONTEXT), state);
        long t0 = System.nanoTime();
        for (int t = 0; t < TOKENS; t++) lm.forward(ids(g, 1), state).toFloatArray();   // read back: the token's work is done
        return (System.nanoTime() - t0) / 1e6 / TOKENS;
    }

    private static Tensor ids(Generator g, int n) {
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) ids[i] = g.nextInt(GenerationReport.VOCAB);
        return Tensor.fromArray(ids, 1, n);
    }
}
