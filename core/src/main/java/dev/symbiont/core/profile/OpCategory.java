package dev.symbiont.core.profile;

/**
 * The families the profiler groups ops into, so a report can say "47% of the step is matmul,
 * 12% is normalisation" without the reader summing op rows. Core's ops use the first eight;
 * model code (attention, selective scans, mixture-of-experts routing, convolutions) and the
 * data loader open scopes with the others.
 */
public enum OpCategory {
    MATMUL("matmul"),
    ATTENTION("attention"),
    NORMALIZATION("normalization"),
    ELEMENTWISE("elementwise"),
    REDUCTION("reduction"),
    INDEXING("indexing"),
    LOSS("loss"),
    COPY("copy"),
    SCAN("scan"),
    ROUTING("routing"),
    CONVOLUTION("convolution"),
    DATA("data"),
    OTHER("other");

    private final String displayName;

    OpCategory(String displayName) { this.displayName = displayName; }

    /** The lower-case name printed in report tables. */
    public String displayName() { return displayName; }

    @Override
    public String toString() { return displayName; }
}
