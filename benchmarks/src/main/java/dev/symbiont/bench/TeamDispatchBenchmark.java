package dev.symbiont.bench;

import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.TaskRunner;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What one parallel job costs: two tasks of {@code work} dependent multiply-adds each (about
 * 0.5 µs at 1,000 and 17 µs at 30,000 on a Zen 4), run on the CPU backend's thread team
 * ({@code CpuThreads.team()}), handed to its ForkJoinPool as the kernels did before the team, or
 * run one after the other on the calling thread. The job's arithmetic is the third's time; the
 * rest of the first two is the hand-off.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class TeamDispatchBenchmark {

    @Param({"1000", "30000"})
    public int work;

    @Param({"team", "forkjoin", "sequential"})
    public String runner;

    private TaskRunner tasks;
    private final long[] results = new long[2];

    @Setup
    public void setUp() {
        tasks = switch (runner) {
            case "team" -> CpuThreads.team();
            case "forkjoin" -> TaskRunner.of(CpuThreads.pool());
            case "sequential" -> null;
            default -> throw new IllegalArgumentException("runner: team, forkjoin or sequential, got " + runner);
        };
    }

    /** A chain of dependent multiply-adds the JIT cannot fold away. */
    private void task(int i) {
        long s = i;
        for (int j = 0; j < work; j++) s = s * 31 + j;
        results[i] = s;
    }

    @Benchmark
    public long[] twoTasks() {
        if (tasks == null) {
            task(0);
            task(1);
        } else {
            tasks.run(2, this::task);
        }
        return results;
    }
}
