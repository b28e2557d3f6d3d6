package dev.symbiont.cuda.build;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The committed kernel images are what the sources compile to: rebuilt here with nvcc (which is
 * repeatable byte for byte) and compared, so a changed .cu without a rebuild fails the build.
 */
class KernelArtifactsTest {

    @Test
    void everyGroupHasCommittedImagesAndNoImageLacksASource() throws Exception {
        List<String> groups = CudaTools.groups();
        assertTrue(groups.contains("copy"), "kernel groups: " + groups);
        List<String> expected = new ArrayList<>();
        for (String g : groups) {
            expected.add(g + ".fatbin");
            expected.add(g + ".ptx");
        }
        try (var files = Files.list(CudaTools.COMMITTED)) {
            assertEquals(expected.stream().sorted().toList(), files.map(f -> f.getFileName().toString()).sorted().toList(),
                    "src/main/resources/dev/symbiont/cuda/kernels must hold exactly the images of src/main/cuda/*.cu");
        }
    }

    @Test
    void committedPtxDeclaresAnIsaThatCuda12DriversLoad() throws Exception {
        for (String g : CudaTools.groups()) {
            String ptx = Files.readString(CudaTools.COMMITTED.resolve(g + ".ptx"));
            String version = ptx.lines().filter(l -> l.startsWith(".version ")).findFirst().orElseThrow().substring(9).trim();
            assertTrue(Double.parseDouble(version) <= 8.0, g + ".ptx declares PTX ISA " + version + "; drivers of CUDA 12 load at most 8.0");
        }
    }

    @Test
    void committedImagesAreWhatTheSourcesCompileTo(@TempDir Path fresh) throws Exception {
        assumeTrue(CudaTools.onPath("nvcc") && CudaTools.onPath("ptxas") && CudaTools.onPath("fatbinary"),
                "the CUDA toolkit (nvcc, ptxas, fatbinary) is not on the PATH: the committed images are used as they are");
        CudaTools.run(List.of("bash", "build-kernels.sh", fresh.toString()));
        for (String g : CudaTools.groups()) {
            for (String file : List.of(g + ".ptx", g + ".fatbin")) {
                byte[] built = Files.readAllBytes(fresh.resolve(file));
                byte[] committed = Files.readAllBytes(CudaTools.COMMITTED.resolve(file));
                assertTrue(Arrays.equals(built, committed), "backend-cuda/src/main/resources/dev/symbiont/cuda/kernels/" + file
                        + " is stale: run backend-cuda/build-kernels.sh and commit its output");
            }
        }
    }
}
