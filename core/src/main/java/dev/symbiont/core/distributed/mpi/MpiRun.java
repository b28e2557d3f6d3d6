package dev.symbiont.core.distributed.mpi;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Starts {@code ranks} copies of a Java main class under Open MPI's {@code mpirun}, each a rank
 * of {@link MpiCommunicator}'s world:
 * <pre>
 * mpirun --oversubscribe --bind-to none -np N [--allow-run-as-root] \
 *        JAVA --enable-native-access=ALL-UNNAMED JVM_ARGS -cp CLASSPATH MAIN ARGS
 * </pre>
 * {@code --oversubscribe} allows more ranks than cores (tests, a laptop); {@code --bind-to none}
 * keeps Open MPI from pinning each JVM to one core, which would leave it one CPU for its
 * compute, GC and JIT threads; {@code --allow-run-as-root} is added when running as root (CI
 * containers), which mpirun otherwise refuses. The transports are left to Open MPI's defaults.
 *
 * @param ranks     the number of processes, at least 1
 * @param jvmArgs   options for every rank's JVM (heap, system properties, JIT flags)
 * @param classpath the class path of every rank
 * @param mainClass the class whose {@code main} each rank runs
 * @param args      the program arguments of every rank
 */
public record MpiRun(int ranks, List<String> jvmArgs, String classpath, String mainClass, List<String> args) {
    /** Every rank binds libmpi with {@code java.lang.foreign}, a restricted API. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    public MpiRun {
        if (ranks < 1) throw new IllegalArgumentException("MpiRun: ranks must be at least 1, got " + ranks);
        if (classpath == null || classpath.isBlank()) throw new IllegalArgumentException("MpiRun: the class path is empty");
        if (mainClass == null || mainClass.isBlank()) throw new IllegalArgumentException("MpiRun: no main class");
        jvmArgs = List.copyOf(jvmArgs);
        args = List.copyOf(args);
    }

    /** A run of {@code mainClass} on this JVM's class path. */
    public static MpiRun onThisClassPath(int ranks, List<String> jvmArgs, String mainClass, List<String> args) {
        return new MpiRun(ranks, jvmArgs, System.getProperty("java.class.path"), mainClass, args);
    }

    /** The command line: {@code mpirun} at {@code mpirun} starting {@code java} in every rank. */
    public List<String> command(Path mpirun, Path java, boolean asRoot) {
        List<String> c = new ArrayList<>(List.of(mpirun.toString(), "--oversubscribe", "--bind-to", "none", "-np", Integer.toString(ranks)));
        if (asRoot) c.add("--allow-run-as-root");
        c.add(java.toString());
        if (jvmArgs.stream().noneMatch(a -> a.startsWith("--enable-native-access"))) c.add(NATIVE_ACCESS);
        c.addAll(jvmArgs);
        c.addAll(List.of("-cp", classpath, mainClass));
        c.addAll(args);
        return c;
    }

    /**
     * Starts the job with this JVM's {@code java} and the {@code mpirun} on the PATH, the output of
     * every rank and of mpirun itself going to {@code output}; the caller waits for the process
     * (and destroys its descendants should it give up).
     */
    public Process start(ProcessBuilder.Redirect output) throws IOException {
        return new ProcessBuilder(command(mpirun(), currentJava(), runningAsRoot()))
                .redirectErrorStream(true)
                .redirectOutput(output)
                .start();
    }

    /** The {@code mpirun} on the PATH; an {@link IllegalStateException} saying to install Open MPI when there is none. */
    public static Path mpirun() { return mpirun(System.getenv("PATH")); }

    /** The {@code mpirun} in the directories of {@code path}, or the error {@link #mpirun()} throws. */
    static Path mpirun(String path) {
        return find("mpirun", path).orElseThrow(() -> new IllegalStateException(
                "mpirun not found: install openmpi-bin (Debian/Ubuntu: apt-get install openmpi-bin); searched PATH=" + path));
    }

    /** The first executable {@code program} in the directories of {@code path} (a PATH value). */
    public static Optional<Path> find(String program, String path) {
        if (path == null) return Optional.empty();
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** This JVM's {@code java} launcher, so every rank runs the same JDK. */
    public static Path currentJava() { return Path.of(System.getProperty("java.home"), "bin", "java"); }

    /** Whether this process runs as uid 0 (the owner of {@code /proc/self}), where mpirun needs {@code --allow-run-as-root}. */
    public static boolean runningAsRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
