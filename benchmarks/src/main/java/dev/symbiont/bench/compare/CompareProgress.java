package dev.symbiont.bench.compare;

/** What a run tells whoever watches it: the plan's size, each measurement as it starts and ends. */
public interface CompareProgress {
    /** The run will take {@code total} measurements. */
    void planned(int total);

    /** A measurement begins. */
    void started(String label);

    /** A measurement ended; {@code outcome} is a short summary ("412 ms", "skipped: …", "failed: …"). */
    void finished(String label, String outcome);

    /** Nothing is shown. */
    CompareProgress SILENT = new CompareProgress() {
        @Override public void planned(int total) { }
        @Override public void started(String label) { }
        @Override public void finished(String label, String outcome) { }
    };
}
