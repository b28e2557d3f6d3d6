package dev.symbiont.bench;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.Storage;
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

import org.openjdk.jmh.annotations.TearDown;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Host transfers of n float32 elements: the array forms of upload and download (which go
 * through the segment forms with the array's memory as the segment) and the segment forms
 * with off-heap memory, the way a memory-mapped checkpoint reaches a backend.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class TransferBenchmark {
    @Param({"cpu", "reference"})
    public String backend;

    @Param({"1", "4096", "1048576"})
    public int n;

    private Backend be;
    private float[] host;
    private Storage stored;
    private Layout whole;
    private Arena arena;
    private MemorySegment offHeap;

    @Setup
    public void setUp() {
        be = Backends.get(backend);
        host = new float[n];
        for (int i = 0; i < n; i++) host[i] = i * 0.5f;
        stored = be.upload(DType.FLOAT32, host);
        whole = Layout.contiguous(n);
        arena = Arena.ofShared();
        offHeap = arena.allocate((long) n * Float.BYTES, Float.BYTES);
        MemorySegment.copy(host, 0, offHeap, java.lang.foreign.ValueLayout.JAVA_FLOAT, 0, n);
    }

    @TearDown
    public void tearDown() { arena.close(); }

    /** A host float[] into a new buffer, released again (a pooled size gets its array back). */
    @Benchmark
    public long uploadArray() { return sizeReleased(be.upload(DType.FLOAT32, host)); }

    /** A contiguous buffer into a new float[]. */
    @Benchmark
    public Object downloadArray() { return be.download(stored, whole); }

    /** Off-heap memory into a new buffer, released again. */
    @Benchmark
    public long uploadSegment() { return sizeReleased(be.upload(DType.FLOAT32, offHeap)); }

    /** A contiguous buffer into off-heap memory. */
    @Benchmark
    public MemorySegment downloadSegment() {
        be.download(stored, whole, offHeap);
        return offHeap;
    }

    /** The uploaded buffer's size, after giving the buffer back (a pooled size gets its array back). */
    private static long sizeReleased(Storage s) {
        long size = s.size();
        s.release();
        return size;
    }
}
