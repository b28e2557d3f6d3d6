package dev.symbiont.cli;

import dev.symbiont.bench.compare.CompareProgress;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;
import java.util.Locale;

/**
 * How {@code compare} shows its progress: the progressbar library's bar redrawn in place on a
 * terminal (the measurement running as its message, each result printed above it), or one line
 * per finished measurement when the output is a file or a pipe.
 */
abstract class CompareProgressBar implements CompareProgress, AutoCloseable {
    static CompareProgressBar create(PrintStream out) {
        boolean terminal = System.console() != null && System.console().isTerminal();
        return terminal ? new Bar(out) : new Lines(out);
    }

    @Override
    public abstract void close();

    /** One line per measurement: {@code [12/80] training: gpt L=512: ms 412, … (2m10s)}. */
    static final class Lines extends CompareProgressBar {
        private final PrintStream out;
        private final long t0 = System.nanoTime();
        private int total, done;

        Lines(PrintStream out) { this.out = out; }

        @Override public void planned(int total) { this.total = total; }
        @Override public void started(String label) { }

        @Override
        public void finished(String label, String outcome) {
            long s = (System.nanoTime() - t0) / 1_000_000_000L;
            out.printf(Locale.ROOT, "[%d/%d] %s: %s (%dm%02ds)%n", ++done, total, label, outcome, s / 60, s % 60);
            out.flush();
        }

        @Override public void close() { }
    }

    /** The redrawn bar. */
    static final class Bar extends CompareProgressBar {
        private final PrintStream out;
        private ProgressBar bar;

        Bar(PrintStream out) { this.out = out; }

        @Override
        public synchronized void planned(int total) {
            bar = new ProgressBarBuilder().setTaskName("compare").setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(250).setConsumer(new ConsoleProgressBarConsumer(out)).build();
        }

        @Override
        public synchronized void started(String label) { if (bar != null) bar.setExtraMessage(label); }

        @Override
        public synchronized void finished(String label, String outcome) {
            if (bar == null) return;
            out.print("\r\033[2K");
            out.println(label + ": " + outcome);
            bar.step();
        }

        @Override
        public synchronized void close() {
            if (bar != null) bar.close();
            bar = null;
        }
    }
}
