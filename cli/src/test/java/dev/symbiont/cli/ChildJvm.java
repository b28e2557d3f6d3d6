package dev.symbiont.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line run in a JVM of its own, on the tests' class path, its output collected as it
 * comes: for runs stopped by real signals, and for {@code --nproc} jobs, whose launcher starts mpirun.
 * {@link #stop} destroys it and everything it started, should a test give up on it.
 */
final class ChildJvm {
    /** What keeps a broken run from hanging the build; no test expects to come near it. */
    static final long TIMEOUT_SECONDS = 180;

    /**
     * {@code env --default-signal=INT}, where this system's env has it: a build started in the
     * background (a non-interactive {@code cmd &}) runs with SIGINT ignored, which every child
     * inherits, and a JVM that starts with SIGINT ignored leaves it so — the Ctrl-C tests would
     * then wait for a run that never hears them. env resets it to the default before exec, so the
     * JVM is the same process with the same pid.
     */
    private static final List<String> DEFAULT_SIGINT = envResetsSigint() ? List.of("env", "--default-signal=INT") : List.of();

    private final Process process;
    private final StringBuffer stdout = new StringBuffer(), stderr = new StringBuffer();
    private final Thread outPump, errPump;

    private ChildJvm(Process process) {
        this.process = process;
        this.outPump = pump(process.getInputStream(), stdout);
        this.errPump = pump(process.getErrorStream(), stderr);
    }

    /** Starts {@code symbiont <args>} with the extra JVM options {@code jvm}. */
    static ChildJvm start(List<String> jvm, List<String> args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(DEFAULT_SIGINT);
        command.addAll(List.of(java, "--add-modules", "jdk.incubator.vector", "-Dstdout.encoding=UTF-8", "-Dstderr.encoding=UTF-8"));
        command.addAll(jvm);
        command.addAll(List.of("-cp", classpath, Main.class.getName()));
        command.addAll(args);
        return new ChildJvm(new ProcessBuilder(command).start());
    }

    private static boolean envResetsSigint() {
        try {
            Process p = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Thread pump(InputStream in, StringBuffer into) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[4096];
            try (in) {
                for (int n; (n = in.read(buffer)) > 0; ) into.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            } catch (IOException closed) {
                // the process ended
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    Process process() { return process; }

    String stdout() { return stdout.toString(); }

    String stderr() { return stderr.toString(); }

    /** Waits until standard error holds {@code text} (the run still alive), failing the test after the timeout. */
    void awaitError(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!stderr.toString().contains(text) && process.isAlive() && System.nanoTime() < deadline) Thread.sleep(50);
        assertTrue(stderr.toString().contains(text), "no '" + text + "': " + stdout + stderr);
    }

    /** Waits for the exit (failing the test after the timeout) and the last of its output; returns the exit code. */
    int awaitExit() throws InterruptedException {
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the run did not end: " + stdout + stderr);
        outPump.join(TimeUnit.SECONDS.toMillis(10));
        errPump.join(TimeUnit.SECONDS.toMillis(10));
        return process.exitValue();
    }

    /** Destroys the run and what it started (mpirun, its ranks), if still alive. */
    void stop() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        if (process.isAlive()) process.destroyForcibly();
    }
}
