package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.peft.Lora;
import dev.symbiont.peft.ModuleNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.function.LongConsumer;

/** Loads a model written by {@code train} (or a Hugging Face directory), with a LoRA adapter when given, and continues a prompt. */
@Command(name = "generate", description = "Sample text from a trained model.")
final class GenerateCommand implements Runnable {
    /** At most a million tokens per call (a megabyte of text, minutes of work); they stream, so memory does not set the limit. */
    static final int MAX_TOKENS = 1_000_000;
    /** Generated tokens are decoded and printed in groups of this many. */
    static final int PRINT_EVERY = 256;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--model", defaultValue = "runs/char-gpt", description = "Directory written by train (default: ${DEFAULT-VALUE}).")
    Path model;

    @Option(names = "--adapter", paramLabel = "<dir>", description = "A LoRA adapter in PEFT's layout (adapter_config.json and "
            + "adapter_model.safetensors, as finetune writes it) to apply to --model.")
    Path adapter;

    @Option(names = "--allow-nonfinite-weights", description = "Load a model whose weights hold NaN or infinite values instead of refusing it.")
    boolean allowNonFinite;

    @Option(names = "--prompt", defaultValue = "From fairest creatures", description = "Text to continue (default: ${DEFAULT-VALUE}).")
    String prompt;

    @Option(names = "--tokens", defaultValue = "400", description = "Characters to generate, at most 1000000 (default: ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--temperature", defaultValue = "0.8", description = "Sampling temperature; 0 is greedy (default: ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--top-k", defaultValue = "0", description = "Sample among the k most likely; 0 = all (default: ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--top-p", defaultValue = "0.95", description = "Nucleus sampling mass (default: ${DEFAULT-VALUE}).")
    double topP;

    @Override
    public void run() {
        new OptionChecks(spec).between("--tokens", tokens, 0, MAX_TOKENS).nonNegative("--temperature", temperature)
                .nonNegative("--top-k", topK).inRange("--top-p", topP, 0, 1);
        common.run("generate", backend -> generate());
    }

    private void generate() throws IOException {
        checkLanguageModel(model);
        ModelFiles.Loaded loaded = ModelFiles.load(model, allowNonFinite);
        CausalLM lm = loaded.model();
        if (adapter != null) {
            try {
                Lora.load(lm, ModuleNames.of(loaded.layout()), adapter);
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalArgumentException("--adapter " + adapter + ": " + e.getMessage(), e);
            }
        }
        if (prompt.isEmpty()) throw new IllegalArgumentException("--prompt is empty: give at least one character to continue");
        int[] promptIds;
        try {
            promptIds = loaded.tokenizer().encode(prompt);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--prompt: " + e.getMessage(), e);
        }
        int context = lm.maxSeq();
        if (promptIds.length > context) {
            throw new IllegalArgumentException("--prompt is " + promptIds.length + " tokens but the model's context is " + context);
        }
        // The text is printed as it is generated, PRINT_EVERY tokens at a time: nothing holds all --tokens of it.
        PrintStream out = System.out;
        out.print(loaded.tokenizer().decode(promptIds));
        int[] pending = new int[PRINT_EVERY];
        int[] size = {0};
        slidingGenerate(lm, Arrays.stream(promptIds).asLongStream().toArray(), tokens, new Sampling(temperature, topK, topP),
                new Generator(common.seed), id -> {
                    pending[size[0]++] = (int) id;
                    if (size[0] == PRINT_EVERY) {
                        out.print(loaded.tokenizer().decode(pending));
                        size[0] = 0;
                    }
                });
        out.println(loaded.tokenizer().decode(Arrays.copyOf(pending, size[0])));
    }

    /** --model names a directory holding a language model and its tokenizer, not an image classifier. */
    private static void checkLanguageModel(Path dir) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--model " + dir + " is a file; name the directory train wrote (it holds "
                    + ModelFiles.WEIGHTS + " and " + ModelFiles.TOKENIZER + ")");
        }
        Path weights = dir.resolve(ModelFiles.WEIGHTS);
        if (!Files.exists(weights)) return; // ModelFiles.load says how to train one
        Map<String, String> metadata = Safetensors.header(weights).metadata();
        if (ImageOptions.TASK.equals(metadata.get("task"))) {
            throw new IllegalArgumentException("--model " + dir + " holds an image classifier (" + metadata.get(ImageArchitecture.ARCHITECTURE)
                    + " on " + ImageOptions.TASK + "), not a language model: evaluate it with `symbiont eval --model " + dir + "`");
        }
        if (!Files.exists(dir.resolve(ModelFiles.TOKENIZER))) {
            throw new IllegalArgumentException("--model " + dir + " has " + ModelFiles.WEIGHTS + " but no " + ModelFiles.TOKENIZER
                    + ", which generate needs to read the prompt and write text (train writes both)");
        }
    }

    /**
     * Generates {@code count} tokens after {@code prompt}, past the context length: whenever the
     * KV cache would overflow, the last half context of text becomes the prompt of a fresh
     * cache. A recurrent model (Mamba) has no context limit and generates in one pass. Each
     * token goes to {@code sink} as it is drawn; at most a context of tokens is held.
     */
    static void slidingGenerate(CausalLM lm, long[] prompt, int count, Sampling sampling, Generator g, LongConsumer sink) {
        int context = lm.maxSeq();
        if (context < 2 && (long) prompt.length + count > context) {
            throw new IllegalArgumentException("the model's context of " + context + " token cannot slide: generate at most "
                    + (context - prompt.length) + " --tokens");
        }
        long[] window = prompt.length < context ? prompt : Arrays.copyOfRange(prompt, prompt.length - context / 2, prompt.length);
        for (long left = count; left > 0; ) {
            int n = (int) Math.min(left, context - window.length);
            // Only a pass that another follows keeps its text (at most a context) for the next window.
            long[] text = n == left ? null : Arrays.copyOf(window, window.length + n);
            int[] at = {window.length};
            lm.generate(window, n, sampling, g, id -> {
                sink.accept(id);
                if (text != null) text[at[0]++] = id;
            });
            left -= n;
            if (text != null) window = Arrays.copyOfRange(text, text.length - context / 2, text.length);
        }
    }
}
