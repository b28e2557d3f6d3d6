package dev.symbiont.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of {@code train --task fashion-mnist} ({@code --arch} is {@link ArchitectureOptions}'
 * and names resnet, convnext or vit here), and the defaults the shared options take
 * for it: an image run trains with larger batches and another learning rate than the char-LM,
 * so a flag the user did not give takes the image default, not the LM one.
 */
final class ImageOptions {
    static final String TASK = "fashion-mnist";
    /** Flags only the char-LM reads, rejected for an image run. */
    static final List<String> LM_ONLY = List.of("--corpus", "--context", "--d-model", "--layers", "--heads", "--init-std",
            "--d-state", "--d-conv", "--expand", "--experts", ArchitectureOptions.EXPERTS_PER_TOKEN, "--shared-experts");
    /** Flags only an image run reads, rejected for the char-LM. */
    static final List<String> IMAGE_ONLY = List.of("--width", "--data", "--label-smoothing", "--optimizer", "--weight-decay", "--crop-padding");
    /** The training loss's label smoothing when --label-smoothing is not given (docs/decisions.md, ADR-061 "The Fashion-MNIST recipe"). */
    static final double LABEL_SMOOTHING = 0.1;
    /** Upper limits: a wider model could not fit in memory; padding past the 28-pixel image crops only zeros. */
    static final int MAX_WIDTH = 4096, MAX_CROP_PADDING = 28;

    @Option(names = "--task", defaultValue = "char-lm",
            description = "char-lm (a character-level GPT on --corpus) or fashion-mnist (an image classifier on --data) (default: ${DEFAULT-VALUE}).")
    String task;

    @Option(names = "--width", description = "fashion-mnist: the model's width — ResNet's and ConvNeXt's first stage, ViT's token width "
            + "(default: 24 for resnet, 32 for convnext, 64 for vit).")
    Integer width;

    @Option(names = "--data", paramLabel = "DIR|subset", description = "fashion-mnist: a directory with the four IDX files, or 'subset' for the "
            + "shipped 6,000/1,000-image subset (default: /usr/share/datasets/fashion-mnist when dataset-fashion-mnist is installed, else the subset).")
    String data;

    @Option(names = "--label-smoothing", paramLabel = "EPS", description = "fashion-mnist: the training loss's label smoothing, "
            + "as PyTorch's cross_entropy(label_smoothing=EPS): 1 - EPS on the label, EPS spread over all classes (default: 0.1).")
    Double labelSmoothing;

    @Option(names = "--optimizer", paramLabel = "sgd|adamw", description = "fashion-mnist: SGD with Nesterov momentum 0.9 (lr 0.2, weight "
            + "decay 5e-4) or AdamW (lr 2e-3, weight decay 0.05) (default: sgd for resnet, adamw for convnext and vit).")
    String optimizer;

    @Option(names = "--weight-decay", description = "fashion-mnist: weight decay on weights, not on biases and norms "
            + "(default: the optimizer's, 5e-4 for sgd, 0.05 for adamw).")
    Double weightDecay;

    @Option(names = "--crop-padding", paramLabel = "N", description = "fashion-mnist: random crop of the training images after N pixels "
            + "of zero padding, as torchvision's RandomCrop(28, padding=N); 0 flips only (default: 0).")
    Integer cropPadding;

    boolean images() { return TASK.equals(task); }

    /** --task names a task, --width is positive, --label-smoothing in [0, 1), --optimizer one of ours, --weight-decay and --crop-padding 0 or more. */
    void check(OptionChecks checks) {
        if (!task.equals("char-lm") && !images()) throw checks.fail("--task must be char-lm or " + TASK + ", got " + task);
        if (width != null) checks.positive("--width", width, MAX_WIDTH);
        if (labelSmoothing != null && !(labelSmoothing >= 0 && labelSmoothing < 1)) {
            throw checks.fail("--label-smoothing must be in [0, 1), got " + labelSmoothing);
        }
        if (optimizer != null) {
            try {
                ImageOptimizer.parse(optimizer);
            } catch (IllegalArgumentException e) {
                throw checks.fail(e.getMessage());
            }
        }
        if (weightDecay != null) checks.nonNegative("--weight-decay", weightDecay);
        if (cropPadding != null) checks.between("--crop-padding", cropPadding, 0, MAX_CROP_PADDING);
    }

    /** The shared options' values for an image run: each given flag as given, the others at the image defaults. */
    record Schedule(String out, int steps, double minutes, int batch, double lr, int evalEvery) {}

    Schedule schedule(ParseResult parsed, TrainCommand c) {
        ImageOptimizer o = optimizer(parsed, c);
        return new Schedule(parsed.hasMatchedOption("--out") ? c.out.toString() : "runs/fashion-mnist",
                parsed.hasMatchedOption("--steps") ? c.steps : 3000,
                parsed.hasMatchedOption("--minutes") ? c.minutes : 10,
                parsed.hasMatchedOption("--batch") ? c.batch : 128,
                parsed.hasMatchedOption("--lr") ? c.lr : o.defaultLr(),
                parsed.hasMatchedOption("--eval-every") ? c.evalEvery : 250);
    }

    /** --arch is the LM's option too, with the LM's default; an image run takes resnet unless --arch is given. */
    private static ImageArchitecture architecture(ParseResult parsed, TrainCommand c) {
        return ImageArchitecture.parse(parsed.hasMatchedOption("--arch") ? c.architecture.arch : "resnet");
    }

    /** --optimizer, else the architecture's own. */
    private ImageOptimizer optimizer(ParseResult parsed, TrainCommand c) {
        return optimizer != null ? ImageOptimizer.parse(optimizer) : architecture(parsed, c).defaultOptimizer();
    }

    /** The flags that define an image run, for {@link RunSettings}. */
    Map<String, String> flags(ParseResult parsed, TrainCommand c) {
        Schedule s = schedule(parsed, c);
        ImageArchitecture a = architecture(parsed, c);
        ImageOptimizer o = optimizer(parsed, c);
        Map<String, String> m = new LinkedHashMap<>();
        m.put("task", TASK);
        m.put("arch", a.flag());
        m.put("width", Integer.toString(width == null ? a.defaultWidth() : width));
        m.put("data", ImageData.of(data).setting());
        m.put("steps", Integer.toString(s.steps()));
        m.put("batch", Integer.toString(s.batch()));
        m.put("lr", Double.toString(s.lr()));
        m.put("eval_every", Integer.toString(s.evalEvery()));
        m.put("label_smoothing", Double.toString(labelSmoothing == null ? LABEL_SMOOTHING : labelSmoothing));
        m.put("optimizer", o.flag());
        m.put("weight_decay", Double.toString(weightDecay == null ? o.defaultWeightDecay() : weightDecay));
        m.put("crop_padding", Integer.toString(cropPadding == null ? 0 : cropPadding));
        m.put("seed", Long.toString(c.common.seed));
        return m;
    }
}
