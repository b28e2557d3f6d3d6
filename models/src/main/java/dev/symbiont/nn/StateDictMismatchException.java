package dev.symbiont.nn;

/** A strict state-dict load found keys that do not line up; {@link #report()} lists every one. */
public final class StateDictMismatchException extends IllegalArgumentException {
    private final transient LoadReport report;

    public StateDictMismatchException(String module, LoadReport report) {
        super("loadStateDict(" + module + ", strict): " + report);
        this.report = report;
    }

    public LoadReport report() { return report; }
}
