package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.TokenWindows;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.ParamGroup;
import dev.symbiont.text.CharTokenizer;
import dev.symbiont.train.Trainer;
import dev.symbiont.train.TrainerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Trains a character-level GPT on a text corpus (by default the public-domain one shipped with
 * Symbiont) and writes the model, its tokenizer, a resumable training checkpoint and metrics.
 */
@Command(name = "train", description = "Train a character-level GPT on a text corpus.")
final class TrainCommand implements Runnable {
    @Mixin
    CommonOptions common;

    @Option(names = "--corpus", description = "UTF-8 text file (default: the shipped sonnets, psalms and proverbs).")
    Path corpus;

    @Option(names = "--out", defaultValue = "runs/char-gpt", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--steps", defaultValue = "600", description = "Optimizer steps (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--minutes", defaultValue = "4.5", description = "Stop after this many minutes of training (default: ${DEFAULT-VALUE}).")
    double minutes;

    @Option(names = "--batch", defaultValue = "32", description = "Sequences per batch (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--context", defaultValue = "128", description = "Context length in characters (default: ${DEFAULT-VALUE}).")
    int context;

    @Option(names = "--d-model", defaultValue = "128", description = "Model width (default: ${DEFAULT-VALUE}).")
    int dModel;

    @Option(names = "--layers", defaultValue = "4", description = "Transformer blocks (default: ${DEFAULT-VALUE}).")
    int layers;

    @Option(names = "--heads", defaultValue = "4", description = "Attention heads (default: ${DEFAULT-VALUE}).")
    int heads;

    @Option(names = "--lr", defaultValue = "3e-3", description = "Peak AdamW learning rate (default: ${DEFAULT-VALUE}).")
    double lr;

    @Option(names = "--eval-every", defaultValue = "100", description = "Steps between validation runs (default: ${DEFAULT-VALUE}).")
    int evalEvery;

    @Option(names = "--init-std", defaultValue = "0.08", description = "Initial weight spread (default: ${DEFAULT-VALUE}).")
    double initStd;

    @Option(names = "--resume", description = "Continue from the checkpoint in --out when there is one.")
    boolean resume;

    @Override
    public void run() { common.run("train", this::train); }

    private void train(Backend backend) throws IOException {
        String text = Corpus.read(corpus);
        CharTokenizer tokenizer = CharTokenizer.fit(text);
        int[] ids = tokenizer.encode(text);
        int split = (int) (ids.length * 0.9);
        int[] trainIds = Arrays.copyOfRange(ids, 0, split), valIds = Arrays.copyOfRange(ids, split, ids.length);
        System.out.printf(Locale.ROOT, "train: %s, %d characters (%d distinct): %d for training, %d for validation%n",
                corpus == null ? "shipped corpus" : corpus, ids.length, tokenizer.vocabSize(), trainIds.length, valIds.length);
        System.out.printf(Locale.ROOT, "train: unigram baseline %.3f nats/char on validation%n", Corpus.unigramLoss(trainIds, valIds, tokenizer.vocabSize()));

        GptConfig config = GptConfig.of(tokenizer.vocabSize(), dModel, layers, heads, context);
        // A wider initial spread than GPT-2's 0.02 (≈ 1/√d_model) learns a small model much faster.
        Gpt model = new Gpt(config, new Generator(common.seed), initStd);
        AdamW optimizer = new AdamW(ParamGroup.splitDecay(model, 0.1), AdamW.options(lr).betas(0.9, 0.99));
        var trainLoader = DataLoader.builder(new TokenWindows(trainIds, context, context / 2), SequenceExample::collate)
                .batchSize(batch).shuffle(common.seed).dropLast(true).prefetch(2).name("train").build();
        var valLoader = DataLoader.builder(new TokenWindows(valIds, context, context), SequenceExample::collate)
                .batchSize(batch).shuffle(common.seed + 1).dropLast(true).name("val").build();
        System.out.printf(Locale.ROOT, "train: GPT with %,d parameters on %s; %d steps of %d × %d characters, at most %.1f minutes%n",
                model.parameterCount(), backend.name(), steps, batch, context, minutes);

        Trainer.LossFunction<SequenceBatch> loss = b -> model.loss(b.input(), b.target());
        Trainer.Result result = Trainer.builder(model, optimizer, trainLoader, loss)
                .schedule(LrSchedule.warmupCosine(lr, lr / 10, Math.min(100, steps / 10), steps))
                .eval(valLoader, loss)
                .tokensPerBatch(b -> b.input().numel())
                .config(TrainerConfig.steps(steps)
                        .withClipNorm(1.0)
                        .withEval(evalEvery, 20)
                        .withLogEvery(25)
                        .withMetrics(out.resolve("metrics.csv"))
                        .withCheckpoint(out.resolve("checkpoint.safetensors"), evalEvery, resume)
                        .withTimeLimit(Duration.ofMillis((long) (minutes * 60_000))))
                .build()
                .fit();
        ModelFiles.save(out, model, tokenizer);
        System.out.printf(Locale.ROOT, "train: %d steps in %.1f s, validation loss %.3f nats/char; model saved to %s%n",
                result.steps(), result.elapsedNanos() / 1e9, result.evalLoss(), out.resolve(ModelFiles.WEIGHTS));
    }
}
