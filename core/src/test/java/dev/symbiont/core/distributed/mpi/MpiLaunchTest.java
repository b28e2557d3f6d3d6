package dev.symbiont.core.distributed.mpi;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How a process started by a launcher is recognised from its environment. */
class MpiLaunchTest {
    @Test
    void openMpisMpirunIsRecognisedByItsRank() {
        Map<String, String> env = Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "PATH", "/usr/bin");
        assertEquals(Optional.of("OMPI_COMM_WORLD_RANK=1"), MpiLaunch.launcher(env));
        assertEquals(OptionalInt.of(1), MpiLaunch.rank(env));
    }

    @Test
    void pmixAndHydraLaunchersAreRecognised() {
        assertEquals(Optional.of("PMIX_RANK=3"), MpiLaunch.launcher(Map.of("PMIX_RANK", "3")));
        assertEquals(Optional.of("PMI_RANK=0"), MpiLaunch.launcher(Map.of("PMI_RANK", "0", "PMI_SIZE", "4")));
        assertEquals(Optional.of("PMI_SIZE=4"), MpiLaunch.launcher(Map.of("PMI_SIZE", "4")));
        assertEquals(OptionalInt.of(3), MpiLaunch.rank(Map.of("PMIX_RANK", "3")));
    }

    @Test
    void withoutALauncherThereIsNone() {
        assertEquals(Optional.empty(), MpiLaunch.launcher(Map.of("PATH", "/usr/bin", "HOME", "/root")));
        assertEquals(OptionalInt.empty(), MpiLaunch.rank(Map.of()));
        assertEquals(OptionalInt.empty(), MpiLaunch.rank(Map.of("PMI_RANK", "not a number")));
    }
}
