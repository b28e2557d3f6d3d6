package dev.symbiont.cuda.driver;

/** A launch's grid or block extent; every component at least 1. */
public record Dim3(int x, int y, int z) {
    public Dim3 {
        if (x < 1 || y < 1 || z < 1) {
            throw new IllegalArgumentException("Dim3: every extent must be at least 1, got (" + x + ", " + y + ", " + z + ")");
        }
    }

    public static Dim3 of(int x) { return new Dim3(x, 1, 1); }

    public static Dim3 of(int x, int y) { return new Dim3(x, y, 1); }

    /** Threads (or blocks) in all. */
    public long count() { return (long) x * y * z; }
}
