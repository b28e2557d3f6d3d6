package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Sampling;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/** Loads a model written by {@code train} and continues a prompt. */
@Command(name = "generate", description = "Sample text from a trained model.")
final class GenerateCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--model", defaultValue = "runs/char-gpt", description = "Directory written by train (default: ${DEFAULT-VALUE}).")
    Path model;

    @Option(names = "--allow-nonfinite-weights", description = "Load a model whose weights hold NaN or infinite values instead of refusing it.")
    boolean allowNonFinite;

    @Option(names = "--prompt", defaultValue = "From fairest creatures", description = "Text to continue (default: ${DEFAULT-VALUE}).")
    String prompt;

    @Option(names = "--tokens", defaultValue = "400", description = "Characters to generate (default: ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--temperature", defaultValue = "0.8", description = "Sampling temperature; 0 is greedy (default: ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--top-k", defaultValue = "0", description = "Sample among the k most likely; 0 = all (default: ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--top-p", defaultValue = "0.95", description = "Nucleus sampling mass (default: ${DEFAULT-VALUE}).")
    double topP;

    @Override
    public void run() {
        new OptionChecks(spec).nonNegative("--tokens", tokens).nonNegative("--temperature", temperature)
                .nonNegative("--top-k", topK).inRange("--top-p", topP, 0, 1);
        common.run("generate", backend -> generate());
    }

    private void generate() throws IOException {
        ModelFiles.Loaded loaded = ModelFiles.load(model, allowNonFinite);
        CausalLM lm = loaded.model();
        int[] promptIds = loaded.tokenizer().encode(prompt);
        int context = lm.maxSeq();
        if (promptIds.length > context) {
            throw new IllegalArgumentException("the prompt is " + promptIds.length + " tokens but the model's context is " + context);
        }
        long[] all = slidingGenerate(lm, Arrays.stream(promptIds).asLongStream().toArray(), tokens,
                new Sampling(temperature, topK, topP), new Generator(common.seed));
        System.out.println(loaded.tokenizer().decode(Arrays.stream(all).mapToInt(v -> (int) v).toArray()));
    }

    /**
     * Generates past the context length: whenever the KV cache would overflow, the last half
     * context of text becomes the prompt of a fresh cache. A recurrent model (Mamba) has no
     * context limit and generates in one pass.
     */
    static long[] slidingGenerate(CausalLM lm, long[] prompt, int count, Sampling sampling, Generator g) {
        int context = lm.maxSeq();
        long[] out = Arrays.copyOf(prompt, prompt.length + count);
        int have = prompt.length;
        while (have < out.length) {
            int keep = have >= context ? context / 2 : have;
            long[] window = Arrays.copyOfRange(out, have - keep, have);
            int n = Math.min(out.length - have, context - keep);
            long[] next = lm.generate(window, n, sampling, g);
            System.arraycopy(next, keep, out, have, n);
            have += n;
        }
        return out;
    }
}
