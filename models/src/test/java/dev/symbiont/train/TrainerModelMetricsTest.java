package dev.symbiont.train;

import dev.symbiont.core.Generator;
import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.MoeConfig;
import dev.symbiont.nn.moe.MoeFeedForward;
import dev.symbiont.nn.moe.RouterLosses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The trainer logs what a model's {@link dev.symbiont.nn.ReportsMetrics} modules report: here two
 * MoE layers (modules 1 and 2 of a Sequential), one dropless and one with a capacity too small
 * for its slots.
 */
class TrainerModelMetricsTest {
    private static final int EXPERTS = 4;

    @TempDir
    Path dir;

    @Test
    void should_log_each_moe_layers_load_drops_and_losses() throws Exception {
        Generator g = new Generator(5);
        MoeFeedForward dropless = new MoeFeedForward(MoeConfig.of(16, EXPERTS, 2, 8), g);
        MoeFeedForward capped = new MoeFeedForward(MoeConfig.of(16, EXPERTS, 2, 8).withDispatch(Dispatch.capacity(0.5)), g);
        Sequential m = new Sequential(new Linear(8, 16, true, g), dropless, capped, new Linear(16, 1, true, g));
        Path csv = dir.resolve("metrics.csv");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        TrainerConfig config = TrainerConfig.steps(6).withLogEvery(1).withMetrics(csv)
                .withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8));
        Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                .config(config).build().fit();

        List<String> lines = Files.readAllLines(csv);
        List<String> header = List.of(lines.getFirst().split(","));
        assertEquals("elapsed_s", header.get(header.indexOf("1.expert_load_0") - 1), "model metrics follow the fixed columns: " + header);
        String[] last = lines.getLast().split(",", -1);
        for (MoeFeedForward layer : List.of(dropless, capped)) {
            String prefix = layer == dropless ? "1." : "2.";
            double sum = 0, max = 0;
            for (int e = 0; e < EXPERTS; e++) {
                double load = value(header, last, prefix + "expert_load_" + e);
                sum += load;
                max = Math.max(max, load);
            }
            assertEquals(1.0, sum, 1e-6, prefix + " loads sum to 1");
            assertEquals(max, value(header, last, prefix + "max_load"), 1e-9);
            // With one step per row and no evaluation, the last row is the last forward's.
            Map<String, Double> own = layer.lastMetrics();
            for (String key : List.of("max_load", "dropped_fraction", "load_balancing_loss", "z_loss")) {
                assertEquals(own.get(key), value(header, last, prefix + key), 1e-6, prefix + key);
            }
        }
        assertEquals(0.0, value(header, last, "1.dropped_fraction"), "dropless drops nothing");
        // capacity ceil(0.5 · 2 · 16 / 4) = 4 slots per expert keeps at most 16 of the 32 slots.
        assertTrue(value(header, last, "2.dropped_fraction") >= 0.5, lines.getLast());

        double headline = Math.max(value(header, last, "1.max_load"), value(header, last, "2.max_load"));
        String expected = String.format(Locale.ROOT, " max_load %.3f lr ", headline);
        String lastLine = log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("step 6/6")).findFirst().orElseThrow();
        assertTrue(lastLine.contains(expected), "progress shows the busiest layer's share: " + lastLine);
    }

    /**
     * A run whose metrics.csv was written before model metrics were logged (only the fixed
     * columns) resumes: the header gains the MoE columns, the earlier rows keep their values with
     * those cells empty, and the progress log says so.
     */
    @Test
    void should_resume_an_moe_run_whose_csv_lacks_the_model_columns() throws Exception {
        Path csv = dir.resolve("metrics.csv"), checkpoint = dir.resolve("train.ckpt");
        for (long steps : new long[] {3, 5}) {
            Generator g = new Generator(5);
            MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(16, EXPERTS, 2, 8), g);
            Sequential m = new Sequential(new Linear(8, 16, true, g), moe, new Linear(16, 1, true, g));
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            TrainerConfig config = TrainerConfig.steps(steps).withLogEvery(1).withMetrics(csv).withCheckpoint(checkpoint, 1, true)
                    .withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8));
            Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                    .config(config).build().fit();
            if (steps == 3) {
                // As an older version wrote it: the fixed columns only.
                List<String> lines = Files.readAllLines(csv);
                int fixed = List.of(lines.getFirst().split(",")).indexOf("elapsed_s") + 1;
                Files.write(csv, lines.stream().map(l -> String.join(",", java.util.Arrays.copyOf(l.split(",", -1), fixed))).toList());
            } else {
                String out = log.toString(StandardCharsets.UTF_8);
                assertTrue(out.contains("from step 4 on the header also has 1.expert_load_0"), out);
            }
        }
        List<String> lines = Files.readAllLines(csv);
        List<String> header = List.of(lines.getFirst().split(","));
        assertEquals(6, lines.size(), lines.toString());
        for (int step = 1; step <= 5; step++) {
            String[] row = lines.get(step).split(",", -1);
            assertEquals(header.size(), row.length, "row " + step);
            assertEquals(Integer.toString(step), row[header.indexOf("step")]);
            assertEquals(step <= 3, row[header.indexOf("1.max_load")].isEmpty(), "row " + step + ": " + lines.get(step));
        }
    }

    /**
     * With two micro-batches per step and a line every three steps, each logged value is the
     * window's mean: the loss and auxiliary loss over its six micro-batches (as the mean over
     * steps of each step's micro-batch mean), each MoE metric over its six forwards; the sums
     * are kept on the backend and read when the line is logged.
     */
    @Test
    void should_log_the_window_means_of_losses_and_metrics_over_steps_and_micro_batches() throws Exception {
        Generator g = new Generator(6);
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(16, EXPERTS, 2, 8), g);
        Sequential m = new Sequential(new Linear(8, 16, true, g), moe, new Linear(16, 1, true, g));
        List<Double> losses = new java.util.ArrayList<>(), auxes = new java.util.ArrayList<>();
        List<Map<String, Double>> forwards = new java.util.ArrayList<>();
        Path csv = dir.resolve("window.csv");
        TrainerConfig config = TrainerConfig.steps(6).withAccumulation(2).withLogEvery(3).withClipNorm(1.0).withMetrics(csv)
                .withProgress(TrainerConfig.ProgressMode.NONE, System.err);
        Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    var loss = Losses.mse(m.forward(b.x()), b.y());
                    losses.add((double) loss.item());
                    forwards.add(moe.lastMetrics());
                    return loss;
                })
                .auxiliaryLoss(() -> {
                    var aux = RouterLosses.total(m, 0.01, 0.001);
                    auxes.add((double) aux.item());
                    return aux;
                })
                .config(config).build().fit();

        List<String> lines = Files.readAllLines(csv);
        List<String> header = List.of(lines.getFirst().split(","));
        assertEquals(3, lines.size(), "a header and a line per three steps: " + lines);
        for (int window = 0; window < 2; window++) {
            String[] row = lines.get(1 + window).split(",", -1);
            int from = 6 * window;
            assertEquals(mean(losses.subList(from, from + 6)), value(header, row, "loss"), 1e-6, "window " + window + " loss");
            assertEquals(mean(auxes.subList(from, from + 6)), value(header, row, "aux_loss"), 1e-6, "window " + window + " aux_loss");
            for (String key : forwards.getFirst().keySet()) {
                List<Double> seen = forwards.subList(from, from + 6).stream().map(f -> f.get(key)).toList();
                assertEquals(mean(seen), value(header, row, "1." + key), 1e-6, "window " + window + " " + key);
            }
            assertTrue(value(header, row, "grad_norm") > 0, lines.get(1 + window));
        }
    }

    private static double mean(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    @Test
    void should_keep_the_columns_of_a_model_that_reports_nothing() throws Exception {
        Sequential m = TrainerTest.model(1);
        Path csv = dir.resolve("plain.csv");
        TrainerTest.trainer(m, TrainerTest.optimizer(m), TrainerConfig.steps(2).withLogEvery(1).withMetrics(csv)
                .withProgress(TrainerConfig.ProgressMode.NONE, System.err)).fit();
        assertEquals("step,epoch,loss,lr,grad_norm,tokens_per_s,eval_loss,elapsed_s", Files.readAllLines(csv).getFirst());
    }

    private static double value(List<String> header, String[] row, String column) {
        int i = header.indexOf(column);
        assertTrue(i >= 0, "no column " + column + " in " + header);
        return Double.parseDouble(row[i]);
    }
}
