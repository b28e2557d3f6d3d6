package dev.symbiont.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The files a training run writes into its {@code --out} directory, and the rule for reusing one. */
final class RunDirectory {
    static final String CHECKPOINT = "checkpoint.safetensors", METRICS = "metrics.csv";
    private static final List<String> FILES = List.of(CHECKPOINT, METRICS, ModelFiles.WEIGHTS, ModelFiles.TOKENIZER);

    private RunDirectory() {}

    static Path checkpoint(Path dir) { return dir.resolve(CHECKPOINT); }

    /**
     * Makes {@code dir} ready for a run: a directory that already holds one is continued only with
     * {@code resume} and replaced only with {@code force}; otherwise this throws saying which to pass.
     */
    static void prepare(Path dir, boolean resume, boolean force) throws IOException {
        if (resume && force) throw new IllegalArgumentException("--resume and --force exclude each other: continue the run or replace it");
        List<String> present = FILES.stream().filter(f -> Files.exists(dir.resolve(f))).toList();
        if (present.isEmpty() || resume) return;
        if (!force) {
            throw new IllegalArgumentException(dir + " already holds a run (" + String.join(", ", present)
                    + "); pass --resume to continue it or --force to start over");
        }
        for (String f : present) Files.delete(dir.resolve(f));
    }
}
