package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.models.CausalLM;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.text.CharTokenizer;
import dev.symbiont.train.Cancellation;
import dev.symbiont.train.NonFiniteException;
import dev.symbiont.train.Trainer;
import dev.symbiont.train.TrainingCheckpoint;
import dev.symbiont.core.distributed.mpi.MpiLaunch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Trains a character-level language model — GPT, Mamba, Mamba-2 or an MoE GPT ({@code --arch}) — on a
 * text corpus (by default the public-domain one shipped with Symbiont) and writes the model, its
 * tokenizer, a resumable training checkpoint and metrics. The checkpoint carries the model's
 * family and config and the run's settings, so {@code --resume} needs no flags but
 * {@code --out}. The model and tokenizer are written with every checkpoint, so a run killed at any
 * moment leaves a model to generate from. Ctrl-C stops after the current step and writes every
 * file, a second Ctrl-C skips the validation ({@link CtrlC}); a step whose loss or gradient norm
 * is not finite stops the run without saving it, or is skipped ({@code --skip-nonfinite}).
 * {@code --task fashion-mnist} trains an image classifier instead ({@link ImageTraining}).
 * {@code --nproc N} trains data-parallel on N processes started through mpirun ({@link TrainLauncher},
 * {@link TrainRanks}); {@code --batch} is then the global batch.
 */
@Command(name = "train", description = {"Train a character-level language model (GPT, Mamba, Mamba-2 or MoE) on a text corpus, or with "
        + "--task fashion-mnist an image classifier (ResNet, ConvNeXt or ViT) on Fashion-MNIST, reporting test accuracy as it trains.",
        "Image runs default to --arch resnet, --out runs/fashion-mnist, --steps 3000, --batch 128, --eval-every 250, --minutes 10, "
                + "--label-smoothing 0.1, and --optimizer sgd (--lr 0.2) for resnet, adamw (--lr 2e-3) for convnext and vit."})
final class TrainCommand implements Callable<Integer> {
    /** Upper limits of the size flags: past them a run could only end in an out-of-memory error or never. */
    static final int MAX_BATCH = 65_536, MAX_CONTEXT = 1 << 20, MAX_WIDTH = 65_536, MAX_LAYERS = 1024;
    /** --minutes at most a year: the clock's limit is held in milliseconds. */
    static final double MAX_MINUTES = 365 * 24 * 60;
    /** --nproc at most this many processes on one machine. */
    static final int MAX_NPROC = 1024;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Mixin
    ArchitectureOptions architecture;

    @Mixin
    ImageOptions images;

    @Option(names = "--corpus", description = "UTF-8 text file (default: the shipped sonnets, psalms and proverbs).")
    Path corpus;

    @Option(names = "--out", defaultValue = "runs/char-gpt", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--steps", defaultValue = "600", description = "Optimizer steps (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--minutes", defaultValue = "4.5", description = "Stop after this many minutes of training (default: ${DEFAULT-VALUE}). While the clock runs ahead "
            + "of the steps (from the second step: the first compiles the kernels) the lr schedule follows the clock, so runs "
            + "that must match bit for bit should end by --steps well within the limit. The limit is the whole run's: --resume keeps "
            + "the checkpoint's and trains for what it leaves; given again, the schedule's horizon moves.")
    double minutes;

    @Option(names = "--batch", defaultValue = "32", description = "Sequences per batch (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--context", defaultValue = "128", description = "Context length in characters (default: ${DEFAULT-VALUE}).")
    int context;

    @Option(names = "--d-model", defaultValue = "128", description = "Model width (default: ${DEFAULT-VALUE}).")
    int dModel;

    @Option(names = "--layers", defaultValue = "4", description = "Blocks: Transformer, Mamba or Mamba-2 (default: ${DEFAULT-VALUE}).")
    int layers;

    @Option(names = "--heads", defaultValue = "4", description = "gpt, moe: attention heads (default: ${DEFAULT-VALUE}).")
    int heads;

    @Option(names = "--lr", defaultValue = "3e-3", description = "Peak learning rate (default: ${DEFAULT-VALUE}; image runs: the optimizer's).")
    double lr;

    @Option(names = "--eval-every", defaultValue = "100",
            description = "Steps between validation runs, each with a checkpoint; 0: none during the run (default: ${DEFAULT-VALUE}).")
    int evalEvery;

    @Option(names = "--init-std", defaultValue = "0.08", description = "Initial weight spread; mamba, mamba2: of the embeddings (default: ${DEFAULT-VALUE}).")
    double initStd;

    @Option(names = "--resume", description = "Continue the run in --out from its checkpoint, with the model and settings saved there.")
    boolean resume;

    @Option(names = "--force", description = "Start over in an --out that already holds a run, deleting its files.")
    boolean force;

    @Option(names = "--nproc", paramLabel = "N", defaultValue = "1", description = "Train data-parallel on N processes of this machine, "
            + "started through mpirun (Open MPI); --batch is then the global batch, split evenly. Under mpirun by hand each process "
            + "takes its rank from the job, and --nproc, if given, must be its size (default: ${DEFAULT-VALUE}).")
    int nproc;

    @Option(names = "--skip-nonfinite", paramLabel = "N", defaultValue = "0", description = "Skip up to N steps whose loss or gradient "
            + "norm is NaN or infinite (their updates are not applied) before stopping; 0 stops at the first (default: ${DEFAULT-VALUE}).")
    int skipNonFinite;

    /** Stops the run after the current step; Ctrl-C requests it (tests call it directly). */
    final Cancellation cancellation = new Cancellation();

    /** What Ctrl-C does (tests press it directly). */
    final CtrlC ctrlC = new CtrlC(cancellation);

    /** The model of the last run, as trained and saved (tests compare it with what generate loads). */
    CausalLM model;

    /** The ranks this process trains with: one, unless it runs in an MPI job. */
    private TrainRanks ranks = TrainRanks.single();

    /** 0, or 130 (128 + SIGINT) when Ctrl-C stopped the run. */
    @Override
    public Integer call() {
        new OptionChecks(spec).positive("--steps", steps).positive("--minutes", minutes).atMost("--minutes", minutes, MAX_MINUTES, "a year")
                .positive("--batch", batch, MAX_BATCH).positive("--context", context, MAX_CONTEXT).positive("--d-model", dModel, MAX_WIDTH)
                .positive("--layers", layers, MAX_LAYERS).positive("--heads", heads, MAX_LAYERS).positive("--lr", lr)
                .nonNegative("--eval-every", evalEvery).positive("--init-std", initStd).nonNegative("--skip-nonfinite", skipNonFinite)
                .outputDirectory("--out", out);
        ArchitectureOptions.noteDeprecatedName(spec.commandLine().getParseResult());
        images.check(new OptionChecks(spec));
        if (!images.images()) architecture.checkValues(new OptionChecks(spec));
        new OptionChecks(spec).positive("--nproc", nproc, MAX_NPROC);
        var parsed = spec.commandLine().getParseResult();
        boolean launched = MpiLaunch.launcher(System.getenv()).isPresent();
        if (nproc > 1 && !launched) return launch(parsed);
        if (!launched) {
            common.run("train", this::train);
            return ctrlC.pressed() ? 130 : 0;
        }
        ranks = TrainRanks.world(nproc, parsed.hasMatchedOption("--nproc"));
        ranks.silenceFollowers();
        if (!ranks.leader()) ctrlC.silence();
        try {
            common.run("train", this::train);
        } catch (RuntimeException e) {
            if (ranks.size() == 1) throw e;
            return ranks.fail(e);
        }
        ranks.close();
        return ctrlC.pressed() ? 130 : 0;
    }

    /**
     * Starts this command on {@code --nproc} processes through mpirun ({@link TrainLauncher}) after the
     * checks that need no rank: a fresh run's global batch must divide by the ranks.
     */
    private int launch(CommandLine.ParseResult parsed) {
        int global = images.images() ? images.schedule(parsed, this).batch() : batch;
        if (!resume && global % nproc != 0) throw new OptionChecks(spec).fail(TrainRanks.indivisible(global, nproc));
        List<String> args = new ArrayList<>();
        List<String> original = parsed.originalArgs();
        for (int i = original.indexOf("train") + 1; i < original.size(); i++) {
            String a = original.get(i);
            if (a.equals("--nproc")) i++;
            else if (!a.startsWith("--nproc=")) args.add(a);
        }
        try {
            return TrainLauncher.run(nproc, args);
        } catch (IOException e) {
            throw new UncheckedIOException(Failures.message(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the mpirun job", e);
        }
    }

    private void train(Backend backend) throws IOException {
        if (images.images() || savedTask().equals(ImageOptions.TASK)) {
            trainImages(backend);
            return;
        }
        for (String flag : ImageOptions.IMAGE_ONLY) rejectUnless(flag, "--task fashion-mnist");
        ranks.prepare(out, resume, force);
        Path checkpoint = RunDirectory.checkpoint(out);
        boolean resuming = resume && Files.exists(checkpoint);
        Map<String, String> saved = resuming ? TrainingCheckpoint.metadata(checkpoint) : null;
        if (resuming) TrainingCheckpoint.preflight(checkpoint, () -> Architecture.load(saved, new Generator(0), Gpt.GPT2_INIT_STD));
        Architecture family = resuming ? Architecture.of(saved) : Architecture.parse(architecture.arch);
        architecture.checkApplies(spec.commandLine().getParseResult(), family, !resuming);
        RunSettings settings = resuming ? RunSettings.resumed(saved, spec.commandLine().getParseResult(), this) : RunSettings.fresh(this);
        if (resume && !resuming) System.out.println("train: no checkpoint in " + out + "; starting a new run");
        if (resuming && RunDirectory.finished(checkpoint, saved, settings.steps())) return;
        double horizon = RunHorizon.minutes(out, saved, minutes, spec.commandLine().getParseResult().hasMatchedOption("--minutes"));

        String text = Corpus.read(settings.corpus());
        CharTokenizer tokenizer = CharTokenizer.fit(text);
        int[] ids = tokenizer.encode(text);
        int split = (int) (ids.length * 0.9);
        int[] trainIds = Arrays.copyOfRange(ids, 0, split), valIds = Arrays.copyOfRange(ids, split, ids.length);
        String corpusName = settings.corpus() == null ? "shipped corpus" : settings.corpus().toString();
        var trainWindows = Corpus.windows("training", trainIds, settings.context(), settings.batch(), settings.context() / 2, corpusName, "characters");
        var valWindows = Corpus.windows("validation", valIds, settings.context(), settings.batch(), settings.context(), corpusName, "characters");
        System.out.printf(Locale.ROOT, "train: %s, %d characters (%d distinct): %d for training, %d for validation%n",
                corpusName, ids.length, tokenizer.vocabSize(), trainIds.length, valIds.length);
        System.out.printf(Locale.ROOT, "train: unigram baseline %.3f nats/char on validation%n", Corpus.unigramLoss(trainIds, valIds, tokenizer.vocabSize()));

        if (!resuming && family.reads("heads") && dModel % heads != 0) {
            throw new IllegalArgumentException("--heads " + heads + " must divide --d-model " + dModel + ": each head takes d_model / heads channels");
        }
        CausalLM model;
        try {
            // A wider initial spread than GPT-2's 0.02 (≈ 1/√d_model) learns a small model much faster.
            model = settings.model(family, tokenizer.vocabSize(), new Generator(settings.seed()), initStd);
        } catch (IllegalArgumentException e) { // a config's own check names its fields, not the flags that set them
            if (resuming) throw e;
            throw new IllegalArgumentException("the model options (--d-model, --layers and --arch " + family.flag() + "'s) do not fit together: "
                    + e.getMessage(), e);
        }
        this.model = model;
        AdamW optimizer = new AdamW(model.parameterGroups(0.1), AdamW.options(settings.lr()).betas(0.9, 0.99));
        var trainLoader = ranks.shard(DataLoader.builder(trainWindows, SequenceExample::collate), settings.batch())
                .shuffle(settings.seed()).dropLast(true).prefetch(2).name("train").build();
        var valLoader = DataLoader.builder(valWindows, SequenceExample::collate)
                .batchSize(settings.batch()).shuffle(settings.seed() + 1).dropLast(true).name("val").build();
        System.out.printf(Locale.ROOT, "train: %s with %,d parameters on %s; %d steps of %s × %d characters, at most %.1f minutes%s%n",
                family.title(), model.parameterCount(), backend.device(), settings.steps(), ranks.describe(settings.batch()), settings.context(),
                horizon, ranks.computeThreads());

        Trainer.LossFunction<SequenceBatch> loss = b -> model.loss(b.input(), b.target());
        // The summary is printed before the Ctrl-C scope closes: a shutdown in progress waits for it.
        try (var interrupts = ctrlC.install()) {
            Trainer.Result result = ranks.distribute(Trainer.builder(model, optimizer, trainLoader, loss), model)
                    .schedule(LrSchedule.warmupCosine(settings.lr(), settings.lr() / 10, Math.min(100, settings.steps() / 10), settings.steps()))
                    .eval(valLoader, loss)
                    .tokensPerBatch(b -> b.input().numel())
                    .auxiliaryLoss(family.hasAuxiliaryLoss() ? model::auxiliaryLoss : null)
                    .cancellation(cancellation)
                    .checkpointMetadata(settings.toMetadata(model))
                    .onCheckpoint(step -> ModelFiles.save(out, model, tokenizer))
                    .config(RunDirectory.trainerConfig(out, settings.steps(), settings.evalEvery(), 20, resuming, horizon, skipNonFinite)
                            .withClipNorm(1.0))
                    .build()
                    .fit();
            System.out.printf(Locale.ROOT, "train: %s, %s; model saved to %s%n",
                    RunEnd.stepsTaken(result), RunEnd.validation(result, settings.evalEvery(), cancellation), out.resolve(ModelFiles.WEIGHTS));
            RunEnd.printInterrupted(result, settings.steps(), out);
            System.out.flush();
        } catch (NonFiniteException e) {
            throw RunEnd.nonFinite(e, out);
        }
    }

    /** The task of the run that {@code --resume} continues: the checkpoint's, char-lm for one saved before tasks existed; "" when none. */
    private String savedTask() throws IOException {
        Path checkpoint = RunDirectory.checkpoint(out);
        if (!resume || !Files.exists(checkpoint)) return "";
        String saved = TrainingCheckpoint.metadata(checkpoint).getOrDefault("run.task", "char-lm");
        if (spec.commandLine().getParseResult().hasMatchedOption("--task") && !saved.equals(images.task)) {
            throw new IllegalArgumentException("--task " + images.task + " differs from the checkpoint's " + saved
                    + ": a resumed run keeps its task; drop the flag or start over with --force");
        }
        return saved;
    }

    private void trainImages(Backend backend) throws IOException {
        for (String flag : ImageOptions.LM_ONLY) rejectUnless(flag, "--task char-lm");
        images.task = ImageOptions.TASK;
        var parsed = spec.commandLine().getParseResult();
        Path dir = Path.of(images.schedule(parsed, this).out());
        ranks.prepare(dir, resume, force);
        boolean resuming = resume && Files.exists(RunDirectory.checkpoint(dir));
        if (resume && !resuming) System.out.println("train: no checkpoint in " + dir + "; starting a new run");
        Map<String, String> saved = resuming ? TrainingCheckpoint.metadata(RunDirectory.checkpoint(dir)) : null;
        if (resuming) TrainingCheckpoint.preflight(RunDirectory.checkpoint(dir), () -> ImageArchitecture.load(saved, new Generator(0)));
        RunSettings settings = resuming ? RunSettings.resumed(saved, parsed, this) : RunSettings.fresh(this);
        if (resuming && RunDirectory.finished(RunDirectory.checkpoint(dir), saved, settings.steps())) return;
        double horizon = RunHorizon.minutes(dir, saved, images.schedule(parsed, this).minutes(), parsed.hasMatchedOption("--minutes"));
        ImageTraining.run(backend, settings, resuming, dir, horizon, ctrlC, skipNonFinite, ranks);
    }

    /** A flag the run's task does not read is an error, not silently ignored. */
    private void rejectUnless(String flag, String task) {
        if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
            throw new OptionChecks(spec).fail(flag + " applies only to " + task);
        }
    }

    /** The flags that define the run, for {@link RunSettings}. */
    Map<String, String> flags() {
        if (images.images()) return images.flags(spec.commandLine().getParseResult(), this);
        Map<String, String> m = new java.util.LinkedHashMap<>(Map.of("corpus", corpus == null ? "" : corpus.toString(), "steps", Integer.toString(steps),
                "batch", Integer.toString(batch), "context", Integer.toString(context), "d_model", Integer.toString(dModel),
                "layers", Integer.toString(layers), "heads", Integer.toString(heads), "lr", Double.toString(lr),
                "eval_every", Integer.toString(evalEvery), "seed", Long.toString(common.seed)));
        m.putAll(architecture.flags());
        return m;
    }
}
