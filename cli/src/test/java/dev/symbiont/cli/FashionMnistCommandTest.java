package dev.symbiont.cli;

import dev.symbiont.data.vision.FashionMnist;
import dev.symbiont.data.vision.Split;
import dev.symbiont.train.ClassificationTally;
import dev.symbiont.train.TrainingCheckpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import java.util.regex.Pattern;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.*;

/** {@code train --task fashion-mnist} and {@code eval} on the shipped subset: the run directory, resuming, eval's agreement with training, bad options. */
class FashionMnistCommandTest {
    @TempDir
    Path dir;

    private static final Pattern ACCURACY = Pattern.compile("test accuracy (\\d\\.\\d{4}) \\((\\d+)/1000\\), loss (\\d+\\.\\d{4})");

    /** A 4-wide default ResNet on the subset: a few steps take a second or two. */
    private CliRun train(Path out, int steps) {
        List<String> args = new ArrayList<>(List.of("train", "--task", "fashion-mnist", "--data", "subset", "--width", "4", "--batch", "32",
                "--steps", Integer.toString(steps), "--eval-every", "3", "--out", out.toString()));
        return run(args.toArray(String[]::new));
    }

    private static Matcher accuracy(String output) {
        Matcher m = ACCURACY.matcher(output);
        assertTrue(m.find(), output);
        return m;
    }

    @Test
    void should_train_into_a_run_directory_and_eval_to_the_accuracy_the_trained_model_gave() throws Exception {
        Path out = dir.resolve("run");
        CliRun trained = train(out, 6);
        assertEquals(0, trained.code(), trained.out() + trained.err());
        assertTrue(trained.out().lines().findFirst().orElseThrow().contains("Fashion-MNIST subset shipped with Symbiont"), trained.out());
        for (String f : List.of(RunDirectory.CHECKPOINT, RunDirectory.METRICS, ModelFiles.WEIGHTS)) assertTrue(Files.exists(out.resolve(f)), f);
        assertTrue(trained.err().contains("step 6: eval loss") && trained.err().contains(" accuracy "), trained.err());
        assertTrue(trained.err().contains(" img/s eta ") && !trained.err().contains("tok/s"), trained.err());
        // The ResNet's recipe: SGD with Nesterov momentum, label smoothing, flips without crops.
        assertTrue(trained.out().contains("sgd lr 0.2, weight decay 0.0005, label smoothing 0.1;"), trained.out());
        assertTrue(trained.out().contains("(augmented: flip)"), trained.out());
        var saved = TrainingCheckpoint.metadata(out.resolve(RunDirectory.CHECKPOINT));
        assertEquals(List.of("sgd", "0.2", "5.0E-4", "0.1", "0"), Stream.of("optimizer", "lr", "weight_decay", "label_smoothing", "crop_padding")
                .map(k -> saved.get("run." + k)).toList());

        // The in-memory model's accuracy on the whole test split, as the trainer computed it at the last step.
        List<String> metrics = Files.readAllLines(out.resolve(RunDirectory.METRICS));
        List<String> header = Arrays.asList(metrics.getFirst().split(","));
        String[] last = metrics.getLast().split(",", -1);
        assertEquals("6", last[header.indexOf("step")]);
        double trainerAccuracy = Double.parseDouble(last[header.indexOf("eval_accuracy")]);
        double trainerLoss = Double.parseDouble(last[header.indexOf("eval_loss")]);

        CliRun eval = run("eval", "--model", out.toString());
        assertEquals(0, eval.code(), eval.out() + eval.err());
        Matcher m = accuracy(eval.out());
        assertEquals(Math.round(trainerAccuracy * 1000), Long.parseLong(m.group(2)), eval.out());
        assertEquals(trainerLoss, Double.parseDouble(m.group(3)), 1e-4, eval.out());
        assertEquals(accuracy(trained.out()).group(0), m.group(0), "train's closing line and eval agree");
        for (String name : FashionMnist.CLASSES) assertTrue(eval.out().contains(name + " "), name + " in " + eval.out());
        assertEquals(10, eval.out().lines().filter(l -> l.endsWith("(100 images)")).count(), eval.out());

        // And a model rebuilt from the files by hand gives the same count.
        ClassifierFiles.Loaded loaded = ClassifierFiles.load(out);
        ClassificationTally t = ClassifierEvaluation.run(loaded.model(),
                ClassifierEvaluation.loader(ImageData.of("subset").dataset(Split.TEST, 0)), FashionMnist.CLASSES.size());
        assertEquals(Long.parseLong(m.group(2)), t.correct());
        assertEquals("resnet", loaded.metadata().get("architecture"));
        assertEquals("4", loaded.metadata().get("width"));
    }

    @Test
    void should_resume_an_image_run_with_its_saved_settings() {
        Path out = dir.resolve("run");
        assertEquals(0, train(out, 3).code());
        CliRun resumed = run("train", "--out", out.toString(), "--resume", "--steps", "5");
        assertEquals(0, resumed.code(), resumed.out() + resumed.err());
        assertTrue(resumed.out().contains("2 steps") && resumed.out().contains("(from step 3 to 5)"), resumed.out());
        assertTrue(resumed.out().contains("resnet (width 4)") && resumed.out().contains("sgd lr 0.2,"), resumed.out());

        CliRun changed = run("train", "--out", out.toString(), "--resume", "--task", "fashion-mnist", "--width", "8");
        assertEquals(2, changed.code());
        assertTrue(changed.err().contains("--width 8 differs from the checkpoint's 4"), changed.err());
        CliRun otherOptimizer = run("train", "--out", out.toString(), "--resume", "--task", "fashion-mnist", "--optimizer", "adamw");
        assertEquals(2, otherOptimizer.code());
        assertTrue(otherOptimizer.err().contains("--optimizer adamw differs from the checkpoint's sgd"), otherOptimizer.err());
    }

    @Test
    void should_train_the_transformer_families_with_adamw_unless_told_otherwise() {
        CliRun vit = run("train", "--task", "fashion-mnist", "--arch", "vit", "--width", "8", "--data", "subset", "--batch", "16",
                "--steps", "1", "--eval-every", "0", "--out", dir.resolve("vit").toString());
        assertEquals(0, vit.code(), vit.out() + vit.err());
        assertTrue(vit.out().contains("adamw lr 0.002, weight decay 0.05, label smoothing 0.1;"), vit.out());
        CliRun sgd = run("train", "--task", "fashion-mnist", "--arch", "vit", "--width", "8", "--data", "subset", "--batch", "16",
                "--steps", "1", "--eval-every", "0", "--optimizer", "sgd", "--lr", "0.05", "--weight-decay", "0", "--label-smoothing", "0",
                "--crop-padding", "2", "--out", dir.resolve("vit-sgd").toString());
        assertEquals(0, sgd.code(), sgd.out() + sgd.err());
        assertTrue(sgd.out().contains("sgd lr 0.05, weight decay 0, label smoothing 0;"), sgd.out());
        assertTrue(sgd.out().contains("(augmented: crop with padding 2 and flip)"), sgd.out());
    }

    private static void assertRejected(CliRun r, String command, String message) {
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().strip().startsWith("symbiont " + command + ": " + message), r.err());
    }

    @Test
    void should_reject_options_that_do_not_fit_the_task() {
        Path out = dir.resolve("run");
        assertRejected(run("train", "--task", "fashion-mnist", "--arch", "mamba", "--out", out.toString()), "train",
                "--arch mamba is not an image model: --task fashion-mnist takes --arch resnet, convnext, vit");
        assertRejected(run("train", "--task", "fashion-mnist", "--context", "64", "--out", out.toString()), "train",
                "--context applies only to --task char-lm");
        assertRejected(run("train", "--width", "8", "--out", out.toString()), "train", "--width applies only to --task fashion-mnist");
        assertRejected(run("train", "--label-smoothing", "0.1", "--out", out.toString()), "train",
                "--label-smoothing applies only to --task fashion-mnist");
        assertRejected(run("train", "--task", "fashion-mnist", "--label-smoothing", "1"), "train", "--label-smoothing must be in [0, 1), got 1.0");
        assertRejected(run("train", "--task", "fashion-mnist", "--optimizer", "adam"), "train", "--optimizer adam is not one of sgd, adamw");
        assertRejected(run("train", "--task", "fashion-mnist", "--crop-padding", "-1"), "train", "--crop-padding must be an integer in [0, 28], got -1");
        assertRejected(run("train", "--optimizer", "sgd", "--out", out.toString()), "train", "--optimizer applies only to --task fashion-mnist");
        assertRejected(run("train", "--task", "mnist"), "train", "--task must be char-lm or fashion-mnist, got mnist");
        assertRejected(run("train", "--task", "fashion-mnist", "--width", "0"), "train", "--width must be a positive integer, got 0");
        assertRejected(run("train", "--task", "fashion-mnist", "--arch", "vit", "--width", "30", "--data", "subset", "--out", out.toString()),
                "train", "--width 30 must be a multiple of ViT's 4 heads");
        Path missing = dir.resolve("nowhere");
        assertRejected(run("train", "--task", "fashion-mnist", "--data", missing.toString(), "--out", out.toString()), "train",
                "--data " + missing + " is not a directory");
        assertFalse(Files.exists(out.resolve(RunDirectory.CHECKPOINT)), "no run was started");
    }

    @Test
    void should_document_the_image_task_in_help() {
        String train = run("train", "--help").out(), eval = run("eval", "--help").out();
        for (String s : List.of("--task", "fashion-mnist", "--arch", "resnet", "convnext", "vit", "--width", "--data", "DIR|subset", "--label-smoothing", "--optimizer",
                "--weight-decay", "--crop-padding")) {
            assertTrue(train.contains(s), s + " in " + train);
        }
        assertTrue(eval.contains("--model") && eval.contains("per-class accuracy"), eval);
    }

    @Test
    void should_say_what_eval_cannot_read() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertRejected(run("eval", "--model", empty.toString()), "eval", "no model at " + empty.resolve(ModelFiles.WEIGHTS));
    }
}
