package dev.symbiont.core.distributed.mpi;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs a test main under mpirun through {@link MpiRun}, with a hard time limit: a job still
 * running then is destroyed with its whole process tree (mpirun, its daemons, every rank).
 * Without mpirun the calling test is skipped, saying to install Open MPI, except where
 * {@code SYMBIONT_MPI_TESTS=required} (CI, which installs it) makes that a failure.
 */
final class MpiJobs {
    private MpiJobs() {}

    /** What a job did: its exit code (-1 when it had to be destroyed), all its output, and whether it ran past the limit. */
    record Outcome(int exitCode, String output, boolean timedOut) {
        String describe() { return "exit code " + exitCode + (timedOut ? " (destroyed at the time limit)" : "") + ", output:\n" + output; }
    }

    /** JVM options that make a rank start fast and small: client JIT, the CDS archive, a small serial heap. */
    static final List<String> FAST_JVM = List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC", "-Xmx256m", "-Xss4m");

    /** Whether the MPI tests must run (CI sets {@code SYMBIONT_MPI_TESTS=required}): a missing Open MPI is then a failure. */
    static boolean required() { return "required".equals(System.getenv("SYMBIONT_MPI_TESTS")); }

    /** Skips (or, on CI, fails) the calling test when mpirun is not on the PATH. */
    static void requireMpirun() {
        boolean present = MpiRun.find("mpirun", System.getenv("PATH")).isPresent();
        if (!present && required()) {
            fail("mpirun not found but SYMBIONT_MPI_TESTS=required: install openmpi-bin (apt-get install openmpi-bin libopenmpi-dev)");
        }
        assumeTrue(present, "mpirun not found: install openmpi-bin (Debian/Ubuntu: apt-get install openmpi-bin) to run the MPI tests");
    }

    /** Runs {@code main} on {@code ranks} ranks with {@link #FAST_JVM} plus {@code jvmArgs}, waiting at most {@code limit}. */
    static Outcome run(int ranks, List<String> jvmArgs, Class<?> main, List<String> args, Duration limit) throws IOException, InterruptedException {
        requireMpirun();
        List<String> jvm = new ArrayList<>(FAST_JVM);
        jvm.addAll(jvmArgs);
        Path log = Files.createTempFile("symbiont-mpi-", ".log");
        try {
            Process job = MpiRun.onThisClassPath(ranks, jvm, main.getName(), args).start(Redirect.to(log.toFile()));
            boolean finished = job.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                job.descendants().forEach(ProcessHandle::destroyForcibly);
                job.destroyForcibly();
                job.waitFor(10, TimeUnit.SECONDS);
            }
            return new Outcome(finished ? job.exitValue() : -1, Files.readString(log), !finished);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
