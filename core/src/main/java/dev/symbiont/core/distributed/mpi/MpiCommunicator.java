package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.CollectiveException;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.HostBuffers;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.core.distributed.Work;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * {@code MPI_COMM_WORLD} of Open MPI, bound with {@code java.lang.foreign}: one rank per process,
 * started by {@code mpirun} (see {@link MpiRun}); {@link dev.symbiont.core.distributed.Communicators#world()}
 * creates it when the process was launched so.
 *
 * <p>Every MPI call runs on one daemon thread owned by the communicator, in the order the
 * collectives were started, so a tensor collective overlaps the caller's compute: the caller's
 * thread copies the tensor into an off-heap staging buffer and queues the call; {@link Work#await()}
 * waits for it and writes the result back, again on the caller's thread. AVG is MPI's SUM divided
 * by the group size in float32, as {@link dev.symbiont.core.distributed.LocalCommunicator} does.
 *
 * <p>A collective that has not completed within the timeout (five minutes, or
 * {@code -Dsymbiont.distributed.timeout=PT30S}) ends the job: one line naming this rank, the
 * collective and the timeout goes to standard error and {@code MPI_Abort} brings every rank
 * down. A tensor all-reduce is started with {@code MPI_Iallreduce} and tested with backoff rather
 * than waited for in the spinning {@code MPI_Allreduce}, so the MPI thread leaves the cores to
 * the compute it overlaps; {@code -Dsymbiont.mpi.wait=block} asks for the blocking call. {@link #close()} finalises MPI after the outstanding calls; a shutdown hook does it for
 * a process that exits without closing.
 */
public final class MpiCommunicator implements Communicator {
    /** The system property holding the collective timeout, an ISO-8601 duration such as {@code PT30S}. */
    public static final String TIMEOUT_PROPERTY = "symbiont.distributed.timeout";
    /** How long a collective may take before the job is aborted, unless configured otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);
    /** The system property choosing how the MPI thread waits for a tensor all-reduce: {@code poll} (default) or {@code block}. */
    public static final String WAIT_PROPERTY = "symbiont.mpi.wait";
    /** The exit code of a job aborted by the timeout (that of coreutils' {@code timeout}). */
    public static final int TIMEOUT_EXIT_CODE = 124;

    /** MPI may be initialised once per process. */
    private static final AtomicBoolean INITIALISED = new AtomicBoolean();

    private final MpiCalls mpi;
    private final OpenMpiHandles handles;
    private final Duration timeout;
    private final CollectiveQueue queue;
    private final StagingPool staging = new StagingPool();
    private final Thread finalizeAtExit = new Thread(this::close, "symbiont-mpi-finalize");
    private final int rank;
    private final int size;
    private volatile boolean closed;

    private MpiCommunicator(MpiLibrary library, Duration timeout) {
        this.mpi = new MpiCalls(library);
        this.handles = OpenMpiHandles.resolve(library, mpi.libraryVersion());
        this.timeout = timeout;
        this.queue = new CollectiveQueue("symbiont-mpi", timeout, this::timedOut);
        int[] rankAndSize = new int[2];
        queue.run("MPI_Init_thread", () -> {
            int provided = mpi.initThread(MpiCalls.THREAD_SERIALIZED);
            if (provided < MpiCalls.THREAD_SERIALIZED) {
                throw new IllegalStateException("MPI_Init_thread: " + library.name() + " provides thread level " + provided
                        + ", below MPI_THREAD_SERIALIZED (" + MpiCalls.THREAD_SERIALIZED + ") which the communicator's MPI thread needs");
            }
            mpi.setErrorHandler(handles.commWorld(), handles.errorsReturn());
            rankAndSize[0] = mpi.rank(handles.commWorld());
            rankAndSize[1] = mpi.size(handles.commWorld());
        }, false);
        this.rank = rankAndSize[0];
        this.size = rankAndSize[1];
        Runtime.getRuntime().addShutdownHook(finalizeAtExit);
    }

    /** Initialises MPI with the timeout of {@value #TIMEOUT_PROPERTY}, or {@link #DEFAULT_TIMEOUT}. */
    public static MpiCommunicator create() { return create(timeout(System.getProperty(TIMEOUT_PROPERTY))); }

    /**
     * Opens the MPI library ({@code libmpi.so.40}, {@code libmpi.so} or {@code -Dsymbiont.mpi.library}),
     * checks it is Open MPI and initialises it; an {@link IllegalStateException} says why when it
     * cannot, and when MPI was already initialised in this process.
     */
    public static MpiCommunicator create(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("MpiCommunicator: timeout must be positive, got " + timeout);
        }
        if (!INITIALISED.compareAndSet(false, true)) {
            throw new IllegalStateException("MpiCommunicator: MPI is initialised once per process; use Communicators.world()");
        }
        return new MpiCommunicator(MpiLibrary.open(), timeout);
    }

    /** The timeout a {@value #TIMEOUT_PROPERTY} value asks for: {@link #DEFAULT_TIMEOUT} when null or blank. */
    public static Duration timeout(String value) {
        if (value == null || value.isBlank()) return DEFAULT_TIMEOUT;
        try {
            Duration d = Duration.parse(value.strip());
            if (!d.isNegative() && !d.isZero()) return d;
        } catch (DateTimeParseException e) {
            // reported below with the property's name
        }
        throw new IllegalArgumentException(TIMEOUT_PROPERTY + "=" + value + " is not a positive ISO-8601 duration such as PT30S or PT5M");
    }

    @Override public int rank() { return rank; }
    @Override public int size() { return size; }
    @Override public String name() { return "mpi"; }

    @Override
    public Work allReduce(Tensor buffer, Reduction op) {
        HostBuffers.checkAllReduce(buffer, op);
        int count = buffer.numel();
        MemorySegment type = handles.datatype(buffer.dtype()), mpiOp = handles.op(op);
        MpiWait wait = MpiWait.current();
        return start("allReduce", buffer, op, -1, bytes(buffer), s -> HostBuffers.download(buffer, s),
                s -> allReduceInPlace(s, count, type, mpiOp, wait),
                reducedInto(buffer, op, count));
    }

    /** The tensor all-reduce on the MPI thread, waited for as {@code wait} says. */
    private void allReduceInPlace(MemorySegment s, int count, MemorySegment type, MemorySegment op, MpiWait wait) {
        if (wait == MpiWait.BLOCK) {
            mpi.allReduceInPlace(s, count, type, op, handles.commWorld());
            return;
        }
        try (Arena slots = Arena.ofConfined()) {
            MemorySegment request = slots.allocate(ValueLayout.ADDRESS), flag = slots.allocate(ValueLayout.JAVA_INT);
            mpi.allReduceInPlaceStart(s, count, type, op, handles.commWorld(), request);
            MpiWait.pollUntil(() -> mpi.test(request, flag));
        }
    }

    @Override
    public Work broadcast(Tensor buffer, int root) {
        HostBuffers.checkBroadcast(buffer, root, size);
        int count = buffer.numel();
        MemorySegment type = handles.datatype(buffer.dtype());
        return start("broadcast", buffer, null, root, bytes(buffer), s -> { if (rank == root) HostBuffers.download(buffer, s); },
                s -> mpi.broadcast(s, count, type, root, handles.commWorld()),
                s -> { if (rank != root) HostBuffers.upload(s, buffer); });
    }

    @Override
    public Work allGather(Tensor input, Tensor output) {
        HostBuffers.checkAllGather(input, output, size);
        int count = input.numel();
        long part = bytes(input);
        MemorySegment type = handles.datatype(input.dtype());
        return start("allGather", input, null, -1, bytes(output), s -> HostBuffers.download(input, s.asSlice(rank * part, part)),
                s -> mpi.allGatherInPlace(s, count, type, handles.commWorld()),
                s -> HostBuffers.upload(s, output));
    }

    @Override
    public Work reduceScatter(Tensor input, Tensor output, Reduction op) {
        HostBuffers.checkReduceScatter(input, output, op, size);
        int count = output.numel();
        MemorySegment type = handles.datatype(input.dtype()), mpiOp = handles.op(op);
        return start("reduceScatter", input, op, -1, bytes(input), s -> HostBuffers.download(input, s),
                s -> mpi.reduceScatterBlockInPlace(s, count, type, mpiOp, handles.commWorld()),
                reducedInto(output, op, count));
    }

    @Override
    public void barrier() {
        ensureOpen("barrier");
        runBlocking("barrier", () -> mpi.barrier(handles.commWorld()));
    }

    @Override
    public void allReduce(double[] values, Reduction op) {
        String name = "allReduce(host)";
        ensureOpen(name);
        if (values == null || op == null) throw new IllegalArgumentException(name + ": values and reduction must not be null");
        StagingPool.Staging s = staging.acquire((long) values.length * Double.BYTES);
        try {
            MemorySegment seg = s.segment();
            MemorySegment.copy(values, 0, seg, ValueLayout.JAVA_DOUBLE, 0, values.length);
            String what = HostBuffers.describe(name, null, values.length, op, -1);
            runBlocking(what, () -> mpi.allReduceInPlace(seg, values.length, handles.float64(), handles.op(op), handles.commWorld()));
            MemorySegment.copy(seg, ValueLayout.JAVA_DOUBLE, 0, values, 0, values.length);
            if (op == Reduction.AVG) for (int i = 0; i < values.length; i++) values[i] /= size;
        } finally {
            staging.release(s);
        }
    }

    @Override
    public void abort(String message, int exitCode) {
        System.err.println("rank " + rank + ": " + message);
        abortJob(exitCode);
    }

    /**
     * Makes the outstanding MPI calls, then {@code MPI_Finalize}; later collectives are errors.
     * Idempotent, and run by a shutdown hook when the process exits without it.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        try {
            CollectiveQueue.await(queue.finish("MPI_Finalize", () -> { if (!mpi.finalized()) mpi.finalizeMpi(); }));
        } finally {
            staging.close();
            if (Thread.currentThread() != finalizeAtExit) {
                try {
                    Runtime.getRuntime().removeShutdownHook(finalizeAtExit);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is already running or done; nothing to remove
                }
            }
        }
    }

    // ---- one collective's life: stage on the caller's thread, call on the MPI thread, write back on the caller's --------

    /**
     * Stages {@code stagedBytes} with {@code stage}, queues {@code call} on the staged buffer and
     * returns the work whose {@code await} runs {@code writeBack}.
     */
    private Work start(String op, Tensor t, Reduction reduction, int root, long stagedBytes,
                       Consumer<MemorySegment> stage, Consumer<MemorySegment> call, Consumer<MemorySegment> writeBack) {
        ensureOpen(op);
        String what = HostBuffers.describe(op, t.dtype(), t.numel(), reduction, root);
        StagingPool.Staging s = staging.acquire(stagedBytes);
        try {
            stage.accept(s.segment());
        } catch (RuntimeException e) {
            staging.release(s);
            throw e;
        }
        return new MpiWork(queue.submit(what, () -> call.accept(s.segment())).exceptionally(e -> { throw failure(what, e); }),
                () -> {
                    if (closed) throw new IllegalStateException(what + ": rank " + rank + "'s communicator was closed before the result was awaited");
                    writeBack.accept(s.segment());
                },
                () -> staging.release(s));
    }

    private void runBlocking(String what, CollectiveQueue.Call call) {
        try {
            queue.run(what, call, false);
        } catch (CollectiveException e) {
            throw failure(what, e);
        }
    }

    private CollectiveException failure(String what, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return new CollectiveException(what + " failed on rank " + rank + " of " + size + ": " + cause.getMessage(), cause);
    }

    /** The write-back of a reduction's first {@code count} staged elements into {@code target}: AVG divides MPI's SUM by the size first, in float32. */
    private Consumer<MemorySegment> reducedInto(Tensor target, Reduction op, int count) {
        return s -> {
            if (op == Reduction.AVG) {
                for (int i = 0; i < count; i++) s.setAtIndex(ValueLayout.JAVA_FLOAT, i, s.getAtIndex(ValueLayout.JAVA_FLOAT, i) / size);
            }
            HostBuffers.upload(s, target);
        };
    }

    /** The bound MPI functions, for {@link MpiDirectCalls}. */
    MpiCalls calls() { return mpi; }

    /** Open MPI's handles, for {@link MpiDirectCalls}. */
    OpenMpiHandles handles() { return handles; }

    void ensureOpen(String op) {
        if (closed) throw new IllegalStateException(op + ": rank " + rank + "'s communicator is closed");
    }

    private void timedOut(String what) {
        int who = size > 0 ? rank : MpiLaunch.rank(System.getenv()).orElse(-1);
        System.err.println("rank " + who + ": " + what + " did not complete within " + seconds(timeout) + " (" + TIMEOUT_PROPERTY
                + "); aborting the job");
        abortJob(TIMEOUT_EXIT_CODE);
    }

    /** {@code MPI_Abort} on the world; should MPI be unable to, the process ends itself, which mpirun also treats as a failed job. */
    private void abortJob(int exitCode) {
        System.err.flush();
        try {
            if (mpi.initialized() && !mpi.finalized()) mpi.abort(handles.commWorld(), exitCode);
        } finally {
            Runtime.getRuntime().halt(exitCode);
        }
    }

    private static long bytes(Tensor t) { return (long) t.numel() * t.dtype().byteSize(); }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }
}
