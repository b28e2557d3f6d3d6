package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.GenerationConfig;
import dev.symbiont.models.GenerationStats;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.models.hf.HfModelDirectory;
import dev.symbiont.peft.Lora;
import dev.symbiont.peft.ModuleNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Loads a model written by {@code train}, or a Hugging Face directory (with a LoRA adapter when
 * given), and continues a prompt,
 * printing the text as the tokens arrive and, on stderr, the speed. The sampling settings default
 * to the model's {@code generation_config.json} (a train run has none: temperature 0.8, top-p
 * 0.95); each flag given overrides its one setting. Generation stops at the model's
 * end-of-sequence ids; past the model's context the window slides.
 */
@Command(name = "generate", description = "Sample text from a trained model or a Hugging Face model directory.")
final class GenerateCommand implements Runnable {
    /** At most a million tokens per call (a megabyte of text, minutes of work); they stream, so memory does not set the limit. */
    static final int MAX_TOKENS = 1_000_000;
    /** New tokens when neither a flag nor generation_config.json's max_new_tokens says. */
    static final int DEFAULT_TOKENS = 400;
    /** The sampling of a model without generation_config.json (a train run). */
    static final Sampling RUN_SAMPLING = new Sampling(0.8, 0, 0.95);
    /** Tokens whose text is incomplete (a UTF-8 sequence split between tokens) wait for the next, at most this many. */
    static final int MAX_PENDING = 256;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--model", defaultValue = "runs/char-gpt",
            description = "Directory written by train, or a Hugging Face model directory (default: ${DEFAULT-VALUE}).")
    Path model;

    @Option(names = "--adapter", paramLabel = "<dir>", description = "A LoRA adapter in PEFT's layout (adapter_config.json and "
            + "adapter_model.safetensors, as finetune writes it) to apply to --model.")
    Path adapter;

    @Option(names = "--allow-nonfinite-weights", description = "Load a model whose weights hold NaN or infinite values instead of refusing it.")
    boolean allowNonFinite;

    @Option(names = "--prompt", defaultValue = "From fairest creatures", description = "Text to continue (default: ${DEFAULT-VALUE}).")
    String prompt;

    @Option(names = "--max-new-tokens", description = "Tokens to generate, at most 1000000 (default: generation_config.json's "
            + "max_new_tokens, else " + DEFAULT_TOKENS + ").")
    Integer maxNewTokens;

    @Option(names = "--tokens", description = "The same as --max-new-tokens.")
    Integer tokens;

    @Option(names = "--temperature", description = "Sampling temperature; 0 is greedy (default: generation_config.json's, else 0.8).")
    Double temperature;

    @Option(names = "--top-k", description = "Sample among the k most likely; 0 = all (default: generation_config.json's, else 0).")
    Integer topK;

    @Option(names = "--top-p", description = "Nucleus sampling mass in (0, 1] (default: generation_config.json's, else 0.95).")
    Double topP;

    @Option(names = "--repetition-penalty", description = "Divide the positive and multiply the negative logits of tokens already "
            + "in the text by this; 1 = none (default: generation_config.json's, else 1).")
    Double repetitionPenalty;

    @Override
    public void run() {
        OptionChecks checks = new OptionChecks(spec);
        if (maxNewTokens != null && tokens != null) {
            throw new ParameterException(spec.commandLine(), "--tokens and --max-new-tokens are the same setting: give one");
        }
        if (maxNewTokens != null) checks.between("--max-new-tokens", maxNewTokens, 0, MAX_TOKENS);
        if (tokens != null) checks.between("--tokens", tokens, 0, MAX_TOKENS);
        if (temperature != null) checks.nonNegative("--temperature", temperature);
        if (topK != null) checks.nonNegative("--top-k", topK);
        if (topP != null) checks.inRange("--top-p", topP, 0, 1);
        if (repetitionPenalty != null) checks.positive("--repetition-penalty", repetitionPenalty);
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
        GenerationConfig config = settings(HfModelDirectory.holds(model) ? HfModelDirectory.generationConfig(model) : null);
        PrintStream out = System.out;
        out.print(loaded.tokenizer().decode(promptIds));
        out.flush();
        TextStream text = new TextStream(loaded.tokenizer()::decode, out);
        GenerationStats stats = lm.generate(Arrays.stream(promptIds).asLongStream().toArray(), config, new Generator(common.seed), text::accept);
        text.finish();
        out.println();
        System.err.println("generate: " + stats.summary());
    }

    /** The model's generation defaults ({@code defaults}; a train run's when null) with the flags given put over them. */
    GenerationConfig settings(GenerationConfig defaults) {
        GenerationConfig base = defaults != null ? defaults
                : new GenerationConfig(List.of(), OptionalLong.empty(), GenerationConfig.DEFAULT_MAX_LENGTH, OptionalInt.empty(), RUN_SAMPLING);
        Sampling s = base.sampling();
        if (temperature != null) s = s.withTemperature(temperature);
        if (topK != null) s = s.withTopK(topK);
        if (topP != null) s = s.withTopP(topP);
        if (repetitionPenalty != null) s = s.withRepetitionPenalty(repetitionPenalty);
        Integer count = maxNewTokens != null ? maxNewTokens : tokens;
        int n = count != null ? count : Math.min(MAX_TOKENS, base.maxNewTokens().orElse(DEFAULT_TOKENS));
        return base.withSampling(s).withMaxNewTokens(n);
    }

    /**
     * Prints each token's text as it arrives: the tokens not printed yet are decoded together, and
     * printed once their text does not end in an incomplete character (U+FFFD, a UTF-8 sequence
     * that the next token completes), or once {@link #MAX_PENDING} wait.
     */
    static final class TextStream {
        private final Function<int[], String> decode;
        private final PrintStream out;
        private final int[] pending = new int[MAX_PENDING];
        private int size;

        /** @param decode token ids to text (a tokenizer's decode) */
        TextStream(Function<int[], String> decode, PrintStream out) {
            this.decode = decode;
            this.out = out;
        }

        void accept(long id) {
            pending[size++] = (int) id;
            String text = decode.apply(Arrays.copyOf(pending, size));
            if (size == MAX_PENDING || !text.endsWith("\uFFFD")) {
                out.print(text);
                out.flush();
                size = 0;
            }
        }

        void finish() {
            if (size > 0) out.print(decode.apply(Arrays.copyOf(pending, size)));
            size = 0;
        }
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
}
