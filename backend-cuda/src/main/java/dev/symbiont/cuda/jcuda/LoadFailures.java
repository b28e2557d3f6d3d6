package dev.symbiont.cuda.jcuda;

import java.util.List;

/**
 * One line for a failure to load a native library or a class that needs one. JCuda's
 * {@link UnsatisfiedLinkError} carries the stack traces of its two load attempts in its message;
 * the line that matters is the last attempt's error, which names the missing dependency
 * ({@code libcuda.so.1: cannot open shared object file}).
 */
public final class LoadFailures {
    private LoadFailures() {}

    /** "UnsatisfiedLinkError: Error while loading native library "X": /tmp/libX.so: libcuda.so.1: cannot open shared object file: ..." */
    public static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String head = failure.getClass().getSimpleName() + ": " + firstLine(failure.getMessage());
        String detail = lastNestedError(failure.getMessage());
        if (detail == null && root != failure) {
            detail = root.getClass().getSimpleName() + ": " + firstLine(root.getMessage());
            String nested = lastNestedError(root.getMessage());
            if (nested != null) detail += ": " + nested;
        }
        return detail == null ? head : head + ": " + detail;
    }

    private static String firstLine(String message) {
        if (message == null) return "null";
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end).strip();
    }

    /** The message of the last "java.lang.UnsatisfiedLinkError: ..." line JCuda nested into its message, if any. */
    private static String lastNestedError(String message) {
        if (message == null || !message.contains("\n")) return null;
        String prefix = "java.lang.UnsatisfiedLinkError: ";
        List<String> errors = message.lines().map(String::strip).filter(l -> l.startsWith(prefix)).toList();
        return errors.isEmpty() ? null : errors.getLast().substring(prefix.length());
    }
}
