package dev.symbiont.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.nio.file.Files;
import java.nio.file.Path;

/** Range checks of option values, run before any work; the error names the flag and the value. */
final class OptionChecks {
    private final CommandSpec spec;

    OptionChecks(CommandSpec spec) { this.spec = spec; }

    OptionChecks positive(String flag, long value) {
        if (value <= 0) throw fail(flag + " must be a positive integer, got " + value);
        return this;
    }

    /** A positive integer no larger than {@code max}. */
    OptionChecks positive(String flag, long value, long max) {
        return positive(flag, value).between(flag, value, 1, max);
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

    /** An integer in [low, high]: a size past {@code high} would only end in an out-of-memory error or an endless run. */
    OptionChecks between(String flag, long value, long low, long high) {
        if (value < low || value > high) throw fail(flag + " must be an integer in [" + low + ", " + high + "], got " + value);
        return this;
    }

    /** A number no larger than {@code high}; {@code why} says what the limit stands for ("a year"). */
    OptionChecks atMost(String flag, double value, double high, String why) {
        if (!(value <= high)) throw fail(flag + " must be at most " + plain(high) + " (" + why + "), got " + value);
        return this;
    }

    /**
     * A directory to write into: named (an empty name would write into the current directory),
     * and neither it nor a folder above it an existing file.
     */
    OptionChecks outputDirectory(String flag, Path dir) {
        if (dir.toString().isBlank()) throw fail(flag + " is empty: name the directory to write into");
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p) && !Files.isDirectory(p)) {
                throw fail(flag + " " + dir + ": " + (p.equals(dir.toAbsolutePath()) ? "it" : p.toString())
                        + " is an existing file, not a directory; name a directory to write into");
            }
        }
        return this;
    }

    private static String plain(double x) { return x == Math.rint(x) ? Long.toString((long) x) : Double.toString(x); }

    /** {@code value} in (low, high]. */
    OptionChecks inRange(String flag, double value, double low, double high) {
        if (!(value > low && value <= high)) throw fail(flag + " must be in (" + low + ", " + high + "], got " + value);
        return this;
    }

    /** A probability that leaves something: in [0, 1). */
    OptionChecks probability(String flag, double value) {
        if (!(value >= 0 && value < 1)) throw fail(flag + " must be in [0, 1), got " + value);
        return this;
    }

    ParameterException fail(String message) { return new ParameterException(spec.commandLine(), message); }
}
