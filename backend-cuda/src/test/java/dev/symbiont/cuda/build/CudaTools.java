package dev.symbiont.cuda.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the CUDA toolkit's command-line tools for the build tests; finds them on the PATH. */
final class CudaTools {
    static final Path MODULE = Path.of("").toAbsolutePath();
    static final Path SOURCES = MODULE.resolve("src/main/cuda");
    static final Path COMMITTED = MODULE.resolve("src/main/resources/dev/symbiont/cuda/kernels");

    private CudaTools() {}

    /** Whether {@code tool} is an executable on the PATH. */
    static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) return false;
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }

    /** Runs a command; returns its output (stdout and stderr), failing with it on a non-zero exit. */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).directory(MODULE.toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(command + " did not finish");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) throw new IllegalStateException(command + " exited " + p.exitValue() + ":\n" + text);
        return text;
    }

    /** The kernel groups: one per {@code src/main/cuda/*.cu}. */
    static List<String> groups() throws IOException {
        try (var files = Files.list(SOURCES)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".cu"))
                    .map(n -> n.substring(0, n.length() - 3)).sorted().toList();
        }
    }
}
