package dev.symbiont.train;

import java.util.function.Consumer;

/**
 * The host side of the non-finite check: what a logging window's {@link NonFiniteWindow.Read}
 * means for the run. With a limit of 0 the first non-finite step stops it; with a limit n the
 * step's update is skipped (on the backend, {@link SkippedUpdate}) and the run stops once more
 * than n steps were skipped. Either way it stops by a {@link NonFiniteException} naming the step
 * and the quantity, thrown before the trainer evaluates or saves anything. An evaluation's
 * non-finite loss stops the run too, before the checkpoint that would follow it.
 */
final class NonFiniteGuard {
    private final int skipLimit;
    private long skipped;

    NonFiniteGuard(int skipLimit) { this.skipLimit = skipLimit; }

    /**
     * Judges the window whose first step is {@code firstStep} (steps counted from 1): a message
     * for skipped steps, or a {@link NonFiniteException} when the run must stop.
     */
    void judge(NonFiniteWindow.Read window, long firstStep, Consumer<String> message) {
        if (!window.any()) return;
        boolean lossFirst = window.lossIndex() > 0 && (window.normIndex() == 0 || window.lossIndex() <= window.normIndex());
        String quantity = lossFirst ? "loss" : "gradient norm";
        double value = lossFirst ? window.lossValue() : window.normValue();
        long step = firstStep - 1 + (lossFirst ? window.lossIndex() : window.normIndex());
        String what = "step " + step + ": the " + quantity + " is " + format(value);
        if (skipLimit == 0) {
            throw new NonFiniteException(step, quantity, value, what + ", so the run stopped; nothing from step " + step + " on was saved");
        }
        skipped += window.skipped();
        if (skipped > skipLimit) {
            throw new NonFiniteException(step, quantity, value, what + "; " + skipped + " non-finite steps were skipped, more than the limit of "
                    + skipLimit + ", so the run stopped; nothing from step " + firstStep + " on was saved");
        }
        message.accept(what + "; " + (window.skipped() == 1 ? "that step was" : window.skipped() + " steps from there were")
                + " skipped (" + skipped + " of at most " + skipLimit + ")");
    }

    /**
     * Judges the evaluation at {@code step}, which runs on the weights that step's update made, just
     * before a checkpoint would save them: a non-finite loss there stops the run, skipping or not.
     */
    void judgeEvaluation(long step, double loss) {
        if (Double.isFinite(loss)) return;
        throw new NonFiniteException(step, "validation loss", loss,
                "step " + step + ": the validation loss is " + format(loss) + ", so the run stopped; nothing from step " + step + " on was saved");
    }

    private static String format(double value) {
        return Double.isNaN(value) ? "NaN" : value > 0 ? "+inf" : "-inf";
    }
}
