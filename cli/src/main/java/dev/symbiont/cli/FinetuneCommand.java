package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.models.CausalLM;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.peft.Lora;
import dev.symbiont.peft.LoraConfig;
import dev.symbiont.peft.LoraModel;
import dev.symbiont.peft.ModuleNames;
import dev.symbiont.peft.PeftLayout;
import dev.symbiont.peft.TargetModules;
import dev.symbiont.peft.WeightFingerprint;
import dev.symbiont.train.Cancellation;
import dev.symbiont.train.NonFiniteException;
import dev.symbiont.train.Trainer;
import dev.symbiont.train.TrainingCheckpoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Fine-tunes a language model with LoRA adapters on a text corpus: the base (a Hugging Face
 * directory or a {@code symbiont train} run) frozen, adapters on the modules {@code --target}
 * names as PEFT names them, trained by the same trainer as {@code train} (progress, validation on
 * the last tenth of the corpus, checkpoints, metrics, {@code --resume}, Ctrl-C). The adapter is
 * written to {@code --out} in PEFT's layout with every checkpoint; {@code --merge} also writes
 * the base with the adapters merged into it, in the base's layout, to {@code --out/merged}. The
 * checkpoint holds only the adapters and their optimizer state, with the base's path and a
 * fingerprint of its weights: a resume on other weights is refused.
 */
@Command(name = "finetune", description = {"Fine-tune a language model (a Hugging Face directory or a train run) with LoRA adapters on a "
        + "text corpus; the adapter is written in PEFT's layout (adapter_config.json, adapter_model.safetensors).",
        "Defaults: --target q_proj,v_proj for Llama, Mistral and Qwen2, c_attn for GPT-2, qkv for Symbiont's GPT."})
final class FinetuneCommand implements Callable<Integer> {
    static final String MERGED = "merged";
    private static final List<String> RUN_FILES = List.of(RunDirectory.CHECKPOINT, RunDirectory.METRICS, PeftLayout.CONFIG, PeftLayout.WEIGHTS);
    private static final String BASE_PATH = "base.path", BASE_FINGERPRINT = "base.fingerprint";

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--model", description = "The base model's directory: Hugging Face's layout or a train run (required for a new run).")
    Path model;

    @Option(names = "--corpus", description = "UTF-8 text file to fine-tune on (required for a new run).")
    Path corpus;

    @Option(names = "--out", defaultValue = "runs/finetune", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--r", defaultValue = "8", description = "LoRA rank (default: ${DEFAULT-VALUE}).")
    int r;

    @Option(names = "--alpha", defaultValue = "16", description = "LoRA alpha; the adapters' term is scaled by alpha / r (default: ${DEFAULT-VALUE}).")
    double alpha;

    @Option(names = "--dropout", defaultValue = "0.05", description = "Dropout on the adapters' input (default: ${DEFAULT-VALUE}).")
    double dropout;

    @Option(names = "--target", paramLabel = "<names>", description = "Comma-separated module names to adapt, as PEFT's target_modules, "
            + "or all-linear (default: the model family's, as PEFT's).")
    String target;

    @Option(names = "--steps", defaultValue = "200", description = "Optimizer steps (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--lr", defaultValue = "2e-4", description = "Peak learning rate (default: ${DEFAULT-VALUE}).")
    double lr;

    @Option(names = "--batch", defaultValue = "8", description = "Sequences per batch (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--context", defaultValue = "256", description = "Tokens per sequence, at most the model's context (default: ${DEFAULT-VALUE}).")
    int context;

    @Option(names = "--eval-every", defaultValue = "50",
            description = "Steps between validation runs, each with a checkpoint; 0: none during the run (default: ${DEFAULT-VALUE}).")
    int evalEvery;

    @Option(names = "--minutes", defaultValue = "60", description = "Stop after this many minutes of training (default: ${DEFAULT-VALUE}).")
    double minutes;

    @Option(names = "--merge", description = "Also write the base with the adapters merged into it, in the base's layout, to --out/merged.")
    boolean merge;

    @Option(names = "--resume", description = "Continue the run in --out from its checkpoint, with the base and settings saved there.")
    boolean resume;

    @Option(names = "--force", description = "Start over in an --out that already holds a run, deleting its files.")
    boolean force;

    @Option(names = "--skip-nonfinite", paramLabel = "N", defaultValue = "0", description = "Skip up to N steps whose loss or gradient "
            + "norm is NaN or infinite before stopping; 0 stops at the first (default: ${DEFAULT-VALUE}).")
    int skipNonFinite;

    /** Stops the run after the current step; Ctrl-C requests it (tests call it directly). */
    final Cancellation cancellation = new Cancellation();

    /** What Ctrl-C does (tests press it directly). */
    final CtrlC ctrlC = new CtrlC(cancellation, "finetune");

    /** 0, or 130 (128 + SIGINT) when Ctrl-C stopped the run. */
    @Override
    public Integer call() {
        new OptionChecks(spec).positive("--steps", steps).positive("--r", r, TrainCommand.MAX_WIDTH).positive("--alpha", alpha)
                .probability("--dropout", dropout).positive("--lr", lr).positive("--batch", batch, TrainCommand.MAX_BATCH)
                .positive("--context", context, TrainCommand.MAX_CONTEXT).nonNegative("--eval-every", evalEvery).positive("--minutes", minutes)
                .atMost("--minutes", minutes, TrainCommand.MAX_MINUTES, "a year").nonNegative("--skip-nonfinite", skipNonFinite)
                .outputDirectory("--out", out);
        if (target != null) targets(target);
        common.run("finetune", this::finetune);
        return ctrlC.pressed() ? 130 : 0;
    }

    private void finetune(Backend backend) throws IOException {
        var parsed = spec.commandLine().getParseResult();
        if (!resume) required();                               // before --force deletes anything
        RunDirectory.prepare(out, resume, force, RUN_FILES);
        Path checkpoint = RunDirectory.checkpoint(out);
        boolean resuming = resume && Files.exists(checkpoint);
        Map<String, String> saved = resuming ? TrainingCheckpoint.metadata(checkpoint) : null;
        if (resuming && !saved.containsKey(BASE_FINGERPRINT)) {
            throw new IllegalArgumentException(checkpoint + " is not a finetune run's checkpoint (it names no base model); continue it with "
                    + "`symbiont train --out " + out + " --resume`");
        }
        RunSettings settings = resuming ? RunSettings.resumed(saved, parsed, flags()) : RunSettings.fresh(flags());
        if (!resuming) required();
        if (resume && !resuming) System.out.println("finetune: no checkpoint in " + out + "; starting a new run");
        if (resuming && RunDirectory.finished("finetune", checkpoint, saved, settings.steps())) {
            if (merge) mergeSaved(settings);
            return;
        }
        double horizon = RunHorizon.minutes(out, saved, minutes, parsed.hasMatchedOption("--minutes"));

        Path base = Path.of(settings.text("model"));
        ModelFiles.Loaded loaded = ModelFiles.load(base);
        CausalLM lm = loaded.model();
        String fingerprint = WeightFingerprint.of(lm);
        if (resuming && !fingerprint.equals(saved.get(BASE_FINGERPRINT))) {
            throw new IllegalArgumentException("the run in " + out + " fine-tunes " + saved.get(BASE_PATH) + " (weights " + saved.get(BASE_FINGERPRINT)
                    + ") but " + base + " holds other weights (" + fingerprint + "); resume with the base the run started from or start over with --force");
        }
        if (settings.context() > lm.maxSeq()) {
            throw new IllegalArgumentException("--context " + settings.context() + " exceeds the model's context of " + lm.maxSeq() + " tokens");
        }
        int[] ids = tokens(settings.corpus(), loaded);
        int split = (int) (ids.length * 0.9);
        int[] trainIds = Arrays.copyOfRange(ids, 0, split), valIds = Arrays.copyOfRange(ids, split, ids.length);
        String corpusName = settings.corpus().toString();
        var trainWindows = Corpus.windows("training", trainIds, settings.context(), settings.batch(), settings.context() / 2, corpusName, "tokens");
        var valWindows = Corpus.windows("validation", valIds, settings.context(), settings.batch(), settings.context(), corpusName, "tokens");
        System.out.printf(Locale.ROOT, "finetune: %s (%s); %s, %d tokens: %d for training, %d for validation%n",
                base, loaded.layout().describe(), corpusName, ids.length, trainIds.length, valIds.length);

        LoraModel lora = adapt(lm, loaded, settings, base);
        System.out.printf(Locale.ROOT, "finetune: LoRA r=%d, alpha=%s, dropout=%s on %s (%d modules); %s%n", lora.config().r(),
                RunHorizon.plain(lora.config().loraAlpha()), lora.config().loraDropout(), lora.config().targetModules(), lora.adapters().size(),
                lora.trainableParameters());
        AdamW optimizer = new AdamW(lora.parameterGroups(0), AdamW.options(settings.lr()));
        var trainLoader = DataLoader.builder(trainWindows, SequenceExample::collate)
                .batchSize(settings.batch()).shuffle(settings.seed()).dropLast(true).prefetch(2).name("train").build();
        var valLoader = DataLoader.builder(valWindows, SequenceExample::collate)
                .batchSize(settings.batch()).shuffle(settings.seed() + 1).dropLast(true).name("val").build();
        System.out.printf(Locale.ROOT, "finetune: %d steps of %d × %d tokens on %s, at most %.1f minutes%n",
                settings.steps(), settings.batch(), settings.context(), backend.device(), horizon);

        Map<String, String> baseInfo = new LinkedHashMap<>();
        baseInfo.put(BASE_PATH, base.toString());
        baseInfo.put(BASE_FINGERPRINT, fingerprint);
        Trainer.LossFunction<SequenceBatch> loss = b -> lm.loss(b.input(), b.target());
        try (var interrupts = ctrlC.install()) {
            Trainer.Result result = Trainer.builder(lm, optimizer, trainLoader, loss)
                    .schedule(LrSchedule.warmupCosine(settings.lr(), settings.lr() / 10, Math.min(100, settings.steps() / 10), settings.steps()))
                    .eval(valLoader, loss)
                    .tokensPerBatch(b -> b.input().numel())
                    .cancellation(cancellation)
                    .checkpointState(TrainingCheckpoint.ModelState.TRAINABLE)
                    .checkpointMetadata(settings.toMetadata(baseInfo))
                    .onCheckpoint(step -> lora.save(out))
                    .config(RunDirectory.trainerConfig(out, settings.steps(), settings.evalEvery(), 20, resuming, horizon, skipNonFinite)
                            .withClipNorm(1.0))
                    .build()
                    .fit();
            System.out.printf(Locale.ROOT, "finetune: %s, %s; adapter saved to %s%n", RunEnd.stepsTaken(result),
                    RunEnd.validation(result, settings.evalEvery(), cancellation, "token"), out);
            if (merge && result.cancelled()) System.out.println("finetune: not merged: the run stopped before --steps");
            else if (merge) saveMerged(lora, loaded, base);
            RunEnd.printInterrupted("finetune", result, settings.steps(), out);
            System.out.flush();
        } catch (NonFiniteException e) {
            throw RunEnd.nonFinite("finetune", e, out);
        }
    }

    /** A new run names its base and its corpus. */
    private void required() {
        if (model == null) throw new OptionChecks(spec).fail("--model is required: name the base model's directory (Hugging Face's layout or a train run)");
        if (corpus == null) throw new OptionChecks(spec).fail("--corpus is required: name the text file to fine-tune on");
    }

    /** The corpus as the base's tokenizer reads it. */
    private static int[] tokens(Path file, ModelFiles.Loaded loaded) throws IOException {
        String text = Corpus.read(file);
        int[] ids;
        try {
            ids = loaded.tokenizer().encode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--corpus " + file + ": " + e.getMessage(), e);
        }
        return ids;
    }

    /** The base with the run's adapters on the modules --target names (its family's default when empty). */
    private static LoraModel adapt(CausalLM lm, ModelFiles.Loaded loaded, RunSettings settings, Path base) {
        ModuleNames names = ModuleNames.of(loaded.layout());
        String given = settings.text("target");
        try {
            TargetModules targets = given.isEmpty() ? TargetModules.defaultFor(Lora.adaptableNames(lm, names)) : targets(given);
            LoraConfig config = new LoraConfig(settings.integer("r"), Double.parseDouble(settings.text("alpha")),
                    Double.parseDouble(settings.text("dropout")), targets, false, false, base.toString());
            return Lora.apply(lm, names, config, new Generator(settings.seed()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--target " + (given.isEmpty() ? "(the default)" : given) + ": " + e.getMessage(), e);
        }
    }

    /** "q_proj,v_proj" as PEFT's list, "all-linear" as its shorthand. */
    private static TargetModules targets(String list) {
        if (list.strip().equals(TargetModules.ALL_LINEAR)) return new TargetModules.AllLinear();
        List<String> names = Arrays.stream(list.split(",", -1)).map(String::strip).toList();
        if (names.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("--target '" + list + "' has an empty name; give comma-separated module names such as q_proj,v_proj");
        }
        return new TargetModules.Names(names);
    }

    /** The base with the adapter in --out merged into it, for a finished run asked again with --merge. */
    private void mergeSaved(RunSettings settings) throws IOException {
        Path base = Path.of(settings.text("model"));
        ModelFiles.Loaded loaded = ModelFiles.load(base);
        saveMerged(Lora.load(loaded.model(), ModuleNames.of(loaded.layout()), out), loaded, base);
    }

    /** Merges the adapters into the base and writes it in the base's layout, with the base's tokenizer files, to --out/merged. */
    private void saveMerged(LoraModel lora, ModelFiles.Loaded loaded, Path base) throws IOException {
        Path dir = out.resolve(MERGED);
        loaded.layout().save(lora.mergeAndUnload(), dir);
        MergedModel.copyTokenizer(base, dir);
        System.out.println("finetune: merged model saved to " + dir);
    }

    /** The flags that define the run, for {@link RunSettings}. */
    Map<String, String> flags() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("model", model == null ? "" : model.toString());
        m.put("corpus", corpus == null ? "" : corpus.toString());
        m.put("r", Integer.toString(r));
        m.put("alpha", Double.toString(alpha));
        m.put("dropout", Double.toString(dropout));
        m.put("target", target == null ? "" : target.strip());
        m.put("steps", Integer.toString(steps));
        m.put("batch", Integer.toString(batch));
        m.put("context", Integer.toString(context));
        m.put("lr", Double.toString(lr));
        m.put("eval_every", Integer.toString(evalEvery));
        m.put("seed", Long.toString(common.seed));
        return m;
    }
}
