package dev.symbiont.train;

import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Shows training progress: a redrawn bar on a terminal, plain log lines when output is a file or pipe
 * or when the optional progressbar library is not on the class path.
 */
interface Progress extends AutoCloseable {
    /**
     * One snapshot: the step just finished and its numbers. auxLoss: the auxiliary loss added to
     * the training loss (an MoE router's), null when there is none; headline: the model's headline
     * metrics ({@code max_load}), shown after it; unit: what tokensPerSecond counts ("tok", "img");
     * timeLeftNanos: what the time limit leaves ({@link Long#MAX_VALUE} without one).
     */
    record Snapshot(long step, long maxSteps, double loss, Double auxLoss, Map<String, Double> headline, double lr,
                    double tokensPerSecond, long elapsedNanos, String unit, long timeLeftNanos) {
        String numbers() {
            StringBuilder model = new StringBuilder();
            headline.forEach((name, v) -> model.append(String.format(Locale.ROOT, " %s %.3f", name, v)));
            return String.format(Locale.ROOT, "loss %.4f%s%s lr %.2e %s %s/s", loss, auxLoss == null ? "" : String.format(Locale.ROOT, " aux %.4f", auxLoss),
                    model, lr, tokensPerSecond > 0 ? String.format(Locale.ROOT, "%.0f", tokensPerSecond) : "-", unit);
        }

        /** Remaining time at the average pace so far, or what the time limit leaves when that is sooner. */
        Duration eta(long startStep) {
            long done = step - startStep;
            if (done <= 0) return Duration.ZERO;
            double bySteps = (double) elapsedNanos / done * (maxSteps - step);
            return Duration.ofNanos((long) Math.min(bySteps, timeLeftNanos));
        }
    }

    void update(Snapshot s);

    /** A line outside the bar (evaluation results, checkpoints). */
    void message(String line);

    @Override
    void close();

    static Progress create(TrainerConfig.ProgressMode mode, PrintStream out, long startStep, long maxSteps) {
        boolean terminal = System.console() != null && System.console().isTerminal();
        if (!barAvailable()) return mode == TrainerConfig.ProgressMode.NONE ? new Silent() : new Lines(out, startStep);
        return switch (mode) {
            case NONE -> new Silent();
            case BAR -> new Bar(out, startStep, maxSteps);
            case LOG -> new Lines(out, startStep);
            case AUTO -> terminal ? new Bar(out, startStep, maxSteps) : new Lines(out, startStep);
        };
    }

    /** Whether the optional progressbar library is on the class path (a library user may leave it out). */
    static boolean barAvailable() {
        try {
            Class.forName("me.tongfei.progressbar.ProgressBar", false, Progress.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    final class Silent implements Progress {
        @Override public void update(Snapshot s) { }
        @Override public void message(String line) { }
        @Override public void close() { }
    }

    /** One line per update: {@code step 120/1000 loss 2.1345 lr 3.00e-04 5400 tok/s eta 2m10s}. */
    final class Lines implements Progress {
        private final PrintStream out;
        private final long startStep;

        Lines(PrintStream out, long startStep) {
            this.out = out;
            this.startStep = startStep;
        }

        @Override
        public void update(Snapshot s) {
            Duration eta = s.eta(startStep);
            out.printf(Locale.ROOT, "step %d/%d %s eta %dm%02ds%n", s.step(), s.maxSteps(), s.numbers(), eta.toMinutes(), eta.toSecondsPart());
            out.flush();
        }

        @Override public void message(String line) { out.println(line); out.flush(); }
        @Override public void close() { }
    }

    /** The progressbar library's bar, redrawn in place, with the step's numbers as its message. */
    final class Bar implements Progress {
        private final ProgressBar bar;
        private final PrintStream out;

        Bar(PrintStream out, long startStep, long maxSteps) {
            this.out = out;
            this.bar = new ProgressBarBuilder().setTaskName("train").setInitialMax(maxSteps).startsFrom(startStep, Duration.ZERO)
                    .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).setConsumer(new ConsoleProgressBarConsumer(out))
                    .build();
        }

        @Override
        public void update(Snapshot s) {
            bar.stepTo(s.step());
            bar.setExtraMessage(s.numbers());
        }

        @Override
        public void message(String line) {
            out.print("\r\033[2K");
            out.println(line);
        }

        @Override public void close() { bar.close(); }
    }
}
