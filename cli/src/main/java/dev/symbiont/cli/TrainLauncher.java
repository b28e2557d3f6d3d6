package dev.symbiont.cli;

import dev.symbiont.core.distributed.mpi.MpiRun;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code symbiont train --nproc N} outside an MPI job: starts N processes of this very command on
 * this machine through {@code mpirun} ({@link MpiRun}: the same java, class path and JVM options,
 * the same arguments without {@code --nproc}), streams their output, and exits with the job's
 * exit code. Each rank then trains as {@link TrainRanks} describes.
 *
 * <ul>
 * <li><b>Threads.</b> The ranks share the machine's cores: each JVM gets
 * {@code -XX:ActiveProcessorCount=max(1, cores / N)} (which sizes the CPU backend's compute
 * threads, and the JIT's and GC's), unless the options already set it.
 * <li><b>Failures.</b> mpirun ends the whole job when a rank fails (an abort, a non-zero exit, a
 * signal). Its multi-line reports are held back and the launcher ends with one line naming the
 * rank and the cause; a report it does not recognise is printed as it came.
 * <li><b>Ctrl-C</b> reaches the launcher alone (mpirun is started in its own session where
 * {@code setsid} exists, and mpirun puts each rank in a process group of its own): the first
 * and second press are passed on to every rank as SIGINT, where they do what they do in a
 * single-process run (stop after the step, agreed by the ranks; then stop now), and the job
 * exits 130 after rank 0 has saved the checkpoint; a third press ends the job through mpirun.
 * </ul>
 */
final class TrainLauncher {
    private TrainLauncher() {}

    /** Runs {@code args} (the train command's arguments, {@code --nproc} removed) on {@code ranks} ranks; returns the job's exit code. */
    static int run(int ranks, List<String> args) throws IOException, InterruptedException {
        Path mpirun = MpiRun.mpirun();
        int cores = Runtime.getRuntime().availableProcessors();
        List<String> jvm = childJvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(), cores, ranks);
        List<String> trainArgs = new ArrayList<>(List.of("train"));
        trainArgs.addAll(args);
        MpiRun job = new MpiRun(ranks, jvm, System.getProperty("java.class.path"), Main.class.getName(), trainArgs);
        List<String> command = new ArrayList<>();
        setsid().ifPresent(p -> command.add(p.toString()));
        command.addAll(job.command(mpirun, MpiRun.currentJava(), MpiRun.runningAsRoot()));
        System.err.printf("train: --nproc %d: starting %d processes with %s, %d compute thread%s each (%d cores here)%n", ranks, ranks, mpirun,
                threadsPerRank(cores, ranks), threadsPerRank(cores, ranks) == 1 ? "" : "s", cores);

        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close(); // the ranks read no input
        MpiReport report = new MpiReport();
        Thread out = pump(process.getInputStream(), System.out, null);
        Thread err = pump(process.getErrorStream(), System.err, report);
        AtomicInteger presses = new AtomicInteger();
        Sigint.take(() -> interrupt(process, presses.incrementAndGet()));
        Thread hook = new Thread(() -> { if (process.isAlive()) process.destroy(); }, "symbiont-launcher-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int code = process.waitFor();
        out.join();
        err.join();
        Runtime.getRuntime().removeShutdownHook(hook);
        if (code != 0 && !(presses.get() > 0 && code == 130)) {
            for (String unknown : report.unrecognised()) System.err.print(unknown);
            System.err.println("symbiont train: " + report.summary(code));
        }
        return code;
    }

    /** Compute threads per rank: the cores shared out, at least one. */
    static int threadsPerRank(int cores, int ranks) { return Math.max(1, cores / ranks); }

    /**
     * The ranks' JVM options: this JVM's, without a debugger agent (its port would clash), with
     * {@code -XX:ActiveProcessorCount} set to the rank's share of the cores unless already given.
     */
    static List<String> childJvmOptions(List<String> own, int cores, int ranks) {
        List<String> out = new ArrayList<>();
        for (String o : own) if (!o.startsWith("-agentlib:jdwp") && !o.startsWith("-Xrunjdwp")) out.add(o);
        if (out.stream().noneMatch(o -> o.startsWith("-XX:ActiveProcessorCount="))) {
            out.add("-XX:ActiveProcessorCount=" + threadsPerRank(cores, ranks));
        }
        return out;
    }

    /**
     * The first and second Ctrl-C go to every rank (its own stop after the step, then stop now);
     * the third ends the job through mpirun (SIGTERM, then SIGKILL to the ranks).
     */
    private static void interrupt(Process job, int press) {
        if (press >= 3) {
            System.err.println("train: ending the job");
            job.destroy();
            return;
        }
        job.descendants().filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false)).forEach(p -> signal("INT", p.pid()));
    }

    private static void signal(String name, long pid) {
        try {
            new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start().waitFor();
        } catch (IOException e) {
            System.err.println("train: could not signal process " + pid + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code setsid}, which keeps a terminal's Ctrl-C away from mpirun (it would kill the job at once). */
    private static Optional<Path> setsid() { return MpiRun.find("setsid", System.getenv("PATH")); }

    /** Copies {@code in} line by line to {@code to}, mpirun's reports held in {@code report} (when given). */
    private static Thread pump(InputStream in, PrintStream to, MpiReport report) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (report == null || !report.take(line)) {
                        to.println(line);
                        to.flush();
                    }
                }
            } catch (IOException closed) {
                // the job ended
            }
        }, "symbiont-launcher-output");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
