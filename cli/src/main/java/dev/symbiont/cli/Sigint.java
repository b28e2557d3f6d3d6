package dev.symbiont.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/** Taking Ctrl-C (SIGINT) from the JVM for a command, and giving it back; shared by train's and compare's handlers. */
final class Sigint {
    static final Signal INT = new Signal("INT");

    private Sigint() {}

    /**
     * Sends SIGINT to {@code press}; returns the handler it had, or null where the JVM keeps the
     * signal (-Xrs, or SIGINT ignored as in a background job): a shutdown hook then serves alone.
     */
    static SignalHandler take(Runnable press) {
        try {
            return Signal.handle(INT, signal -> press.run());
        } catch (IllegalArgumentException reservedByTheJvm) {
            return null;
        }
    }

    /** Gives SIGINT back to {@code previous} (when there was one). */
    static void restore(SignalHandler previous) {
        if (previous != null) Signal.handle(INT, previous);
    }

    /** Removes a shutdown hook, unless the JVM is already running it. */
    static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running: it returns now that the command's files are written.
        }
    }
}
