package dev.symbiont.train;

/**
 * A training step whose loss or gradient norm was NaN or infinite stopped the run
 * ({@link TrainerConfig#skipNonFinite()} steps of them are skipped first), or an evaluation's loss
 * was. Thrown by
 * {@link Trainer#fit()} before anything of that step is evaluated or saved: the checkpoint and
 * model files on disk are the last good ones.
 */
public final class NonFiniteException extends ArithmeticException {
    private final long step;
    private final String quantity;
    private final double value;

    NonFiniteException(long step, String quantity, double value, String message) {
        super(message);
        this.step = step;
        this.quantity = quantity;
        this.value = value;
    }

    /** The optimizer step (counted from 1) whose quantity was not finite. */
    public long step() { return step; }

    /** {@code "loss"}, {@code "gradient norm"} or {@code "validation loss"}. */
    public String quantity() { return quantity; }

    /** The value it had: NaN or an infinity. */
    public double value() { return value; }
}
