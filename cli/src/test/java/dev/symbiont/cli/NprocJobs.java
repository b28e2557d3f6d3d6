package dev.symbiont.cli;

import dev.symbiont.core.distributed.mpi.MpiRun;

import java.util.List;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What the {@code train --nproc} tests share: the child JVMs' options and the mpirun requirement. */
final class NprocJobs {
    private NprocJobs() {}

    /** Options that make each JVM of a job start fast and small; the launcher passes them on to the ranks. */
    static final List<String> FAST_JVM = List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC", "-Xmx512m");

    /**
     * Skips the calling test without mpirun, except where CI (which installs openmpi-bin) sets
     * {@code SYMBIONT_MPI_TESTS=required}: a missing mpirun is then a failure.
     */
    static void requireMpirun() {
        boolean present = MpiRun.find("mpirun", System.getenv("PATH")).isPresent();
        if (!present && "required".equals(System.getenv("SYMBIONT_MPI_TESTS"))) {
            fail("mpirun not found but SYMBIONT_MPI_TESTS=required: install openmpi-bin (apt-get install openmpi-bin libopenmpi-dev)");
        }
        assumeTrue(present, "mpirun not found: install openmpi-bin (Debian/Ubuntu: apt-get install openmpi-bin) to run the --nproc tests");
    }

    static int count(String text, String part) { return text.split(java.util.regex.Pattern.quote(part), -1).length - 1; }
}
