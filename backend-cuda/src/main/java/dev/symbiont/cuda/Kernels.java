package dev.symbiont.cuda;

import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.HashMap;
import java.util.Map;

/**
 * Loads kernel groups on first use and launches their kernels on the backend's stream. Launch
 * configuration lives here, in one place: elementwise kernels are grid-stride loops of
 * {@value #THREADS} threads a block over at most {@value #MAX_BLOCKS} blocks, so any element
 * count (a long) fits one launch.
 */
final class Kernels {
    static final int THREADS = 256;
    static final int MAX_BLOCKS = 65_535;

    private final Driver driver;
    private final Driver.Stream stream;
    private final Map<String, Driver.Module> modules = new HashMap<>();
    private final Map<String, Driver.Function> functions = new HashMap<>();

    Kernels(Driver driver, Driver.Stream stream) {
        this.driver = driver;
        this.stream = stream;
    }

    /** Launches {@code group}'s grid-stride kernel {@code name} over {@code n} elements. Nothing runs for n = 0. */
    void launch(String group, String name, long n, KernelArgs args) {
        if (n == 0) return;
        launch(group, name, Dim3.of(blocks(n)), Dim3.of(THREADS), 0, args);
    }

    /** Launches {@code group}'s kernel {@code name} with an explicit configuration. */
    void launch(String group, String name, Dim3 grid, Dim3 block, int sharedBytes, KernelArgs args) {
        driver.launch(function(group, name), grid, block, sharedBytes, stream, args);
    }

    /** Blocks for a grid-stride loop over {@code n} elements. */
    static int blocks(long n) {
        return (int) Math.max(1, Math.min(MAX_BLOCKS, (n + THREADS - 1) / THREADS));
    }

    private synchronized Driver.Function function(String group, String name) {
        String key = group + "/" + name;
        Driver.Function f = functions.get(key);
        if (f == null) {
            Driver.Module module = modules.computeIfAbsent(group, g -> driver.load(KernelImages.load(g)));
            f = driver.function(module, name);
            functions.put(key, f);
        }
        return f;
    }
}
