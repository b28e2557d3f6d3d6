package dev.symbiont.core.distributed.mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mpirun command line {@link MpiRun} builds, and how it finds mpirun. */
class MpiRunTest {
    private static final MpiRun TRAIN = new MpiRun(4, List.of("-Xmx1g", "-Dsymbiont.distributed.timeout=PT30S"), "a.jar:b.jar",
            "dev.symbiont.cli.Main", List.of("train", "--steps", "10"));

    @Test
    void theCommandStartsJavaUnderMpirunWithoutBindingAndWithNativeAccess() {
        assertEquals(List.of("/usr/bin/mpirun", "--oversubscribe", "--bind-to", "none", "-np", "4",
                        "/jdk/bin/java", "--enable-native-access=ALL-UNNAMED", "-Xmx1g", "-Dsymbiont.distributed.timeout=PT30S",
                        "-cp", "a.jar:b.jar", "dev.symbiont.cli.Main", "train", "--steps", "10"),
                TRAIN.command(Path.of("/usr/bin/mpirun"), Path.of("/jdk/bin/java"), false));
    }

    @Test
    void asRootTheCommandAllowsIt() {
        List<String> c = TRAIN.command(Path.of("/usr/bin/mpirun"), Path.of("/jdk/bin/java"), true);
        assertEquals(List.of("/usr/bin/mpirun", "--oversubscribe", "--bind-to", "none", "-np", "4", "--allow-run-as-root", "/jdk/bin/java"),
                c.subList(0, 8));
    }

    @Test
    void aNativeAccessOptionOfTheCallerIsNotRepeated() {
        MpiRun run = new MpiRun(2, List.of("--enable-native-access=ALL-UNNAMED,dev.symbiont.core"), "cp", "Main", List.of());
        List<String> c = run.command(Path.of("mpirun"), Path.of("java"), false);
        assertEquals(1, c.stream().filter(a -> a.startsWith("--enable-native-access")).count(), c.toString());
        assertEquals("--enable-native-access=ALL-UNNAMED,dev.symbiont.core", c.get(c.indexOf("java") + 1));
    }

    @Test
    void mpirunIsTheFirstExecutableOnThePath(@TempDir Path dir) throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path notExecutable = Files.createDirectory(dir.resolve("plain"));
        Files.writeString(notExecutable.resolve("mpirun"), "");
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path mpirun = Files.writeString(bin.resolve("mpirun"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(mpirun, PosixFilePermissions.fromString("rwxr-xr-x"));
        String path = String.join(":", empty.toString(), "", notExecutable.toString(), bin.toString());
        assertEquals(Optional.of(mpirun), MpiRun.find("mpirun", path));
        assertEquals(mpirun, MpiRun.mpirun(path));
        assertEquals(Optional.empty(), MpiRun.find("mpirun", null));
    }

    @Test
    void withoutMpirunTheErrorSaysToInstallOpenMpi(@TempDir Path dir) {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MpiRun.mpirun(dir.toString()));
        assertTrue(e.getMessage().startsWith("mpirun not found: install openmpi-bin"), e.getMessage());
        assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    }

    @Test
    void badRunsAreRefusedNamingWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MpiRun(0, List.of(), "cp", "Main", List.of()))
                .getMessage().contains("ranks must be at least 1, got 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MpiRun(2, List.of(), " ", "Main", List.of()))
                .getMessage().contains("class path"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MpiRun(2, List.of(), "cp", "", List.of()))
                .getMessage().contains("main class"));
    }

    @Test
    void everyRankRunsThisJvmsJava() {
        assertEquals(Path.of(System.getProperty("java.home"), "bin", "java"), MpiRun.currentJava());
        assertTrue(Files.isExecutable(MpiRun.currentJava()));
    }
}
