package dev.symbiont.cuda.ptx;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every function of every PTX module the jar ships decodes: each instruction and modifier nvcc
 * emitted for our kernels is one the interpreter implements, so none can fail only when a test
 * happens to reach it.
 */
class ShippedPtxDecodesTest {
    private static final Path KERNELS = Path.of("src/main/resources/dev/symbiont/cuda/kernels");

    @Test
    void everyShippedFunctionDecodes() throws Exception {
        List<String> failures = new ArrayList<>();
        int functions = 0;
        try (var files = Files.list(KERNELS)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".ptx")).sorted().toList()) {
                PtxProgram program = new PtxProgram(Files.readString(p), new DeviceMemory(1 << 20));
                for (String name : program.module.functions.keySet()) {
                    functions++;
                    try {
                        program.function(name);
                    } catch (PtxException e) {
                        failures.add(p.getFileName() + ": " + e.getMessage());
                    }
                }
            }
        }
        assertTrue(functions > 0, "no shipped PTX found in " + KERNELS.toAbsolutePath());
        assertTrue(failures.isEmpty(), "functions the interpreter cannot run:\n" + String.join("\n", failures));
    }
}
