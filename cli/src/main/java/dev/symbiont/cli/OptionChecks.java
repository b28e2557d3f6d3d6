package dev.symbiont.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Range checks of option values, run before any work; the error names the flag and the value. */
final class OptionChecks {
    private final CommandSpec spec;

    OptionChecks(CommandSpec spec) { this.spec = spec; }

    OptionChecks positive(String flag, long value) {
        if (value <= 0) throw fail(flag + " must be a positive integer, got " + value);
        return this;
    }

    OptionChecks nonNegative(String flag, long value) {
        if (value < 0) throw fail(flag + " must be 0 or more, got " + value);
        return this;
    }

    OptionChecks positive(String flag, double value) {
        if (!(value > 0) || Double.isInfinite(value)) throw fail(flag + " must be a positive number, got " + value);
        return this;
    }

    OptionChecks nonNegative(String flag, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) throw fail(flag + " must be 0 or more, got " + value);
        return this;
    }

    /** {@code value} in (low, high]. */
    OptionChecks inRange(String flag, double value, double low, double high) {
        if (!(value > low && value <= high)) throw fail(flag + " must be in (" + low + ", " + high + "], got " + value);
        return this;
    }

    ParameterException fail(String message) { return new ParameterException(spec.commandLine(), message); }
}
