package dev.symbiont.bench.compare;

/** How the report names a series: a family's title for its id, the id itself otherwise. */
final class Titles {
    private Titles() {}

    static String of(String series) {
        for (LmFamily f : LmFamily.values()) if (f.id().equals(series)) return f.title();
        for (ImageFamily f : ImageFamily.values()) if (f.id().equals(series)) return f.title();
        return series;
    }
}
