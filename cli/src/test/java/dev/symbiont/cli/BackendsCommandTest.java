package dev.symbiont.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class BackendsCommandTest {
    @Test
    void should_say_why_cuda_cannot_run_on_a_machine_without_a_driver() {
        assumeFalse(List.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1").stream()
                .anyMatch(p -> Files.isReadable(Path.of(p))), "a CUDA driver is present here");
        CliRun r = run("backends");
        assertEquals(0, r.code(), r.err());
        String cuda = r.out().lines().filter(l -> l.startsWith("cuda ")).findFirst().orElseThrow(() -> new AssertionError(r.out()));
        assertTrue(cuda.startsWith("cuda (priority 200): unavailable, no NVIDIA driver found (libcuda.so.1 not in ["), cuda);
        assertTrue(cuda.endsWith("the CUDA kernels are built into this jar and every build runs them on the PTX interpreter"), cuda);
        assertTrue(r.out().contains("\ndefault: "), r.out());
    }
}
