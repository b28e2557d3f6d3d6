package dev.symbiont.cuda.nccl;

import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.distributed.CollectiveException;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.HostBuffers;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.core.distributed.Work;
import dev.symbiont.core.distributed.mpi.MpiCommunicator;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.CudaStorage;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.jcuda.JCudaDriver;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A communicator over NCCL for tensors on one GPU per rank (PyTorch's {@code backend="nccl"}),
 * set up over a bootstrap communicator as nccl-tests and Horovod do over MPI: rank 0 makes the
 * unique id, the bootstrap broadcasts its 128 bytes, and every rank joins with
 * {@code ncclCommInitRank} on its backend's device. The bootstrap keeps what NCCL is not for: the
 * host {@link #allReduce(double[], Reduction)}, {@link #barrier()} and {@link #abort}.
 *
 * <pre>{@code
 * Communicator world = Communicators.world();                       // MPI under mpirun
 * CudaBackend gpu = (CudaBackend) Backends.get("cuda:" + NcclCommunicator.localRank(System.getenv()));
 * try (Communicator nccl = NcclCommunicator.create(world, gpu)) {
 *     nccl.allReduce(grad, Reduction.AVG).await();                   // grad on gpu, reduced GPU to GPU
 * }
 * }</pre>
 *
 * <p>Each collective is queued on a stream of its own, after an event recorded on the backend's
 * stream (so it reads what the kernels before it wrote) and before an event that
 * {@link Work#await()} waits for, so kernels queued meanwhile overlap the transfer. AVG is
 * {@code ncclAvg} from NCCL 2.10 on, else NCCL's sum divided by the group size on the backend.
 * While waiting, {@code ncclCommGetAsyncError} is polled: an error aborts the NCCL communicator
 * and is thrown; a collective not done within the timeout ({@value MpiCommunicator#TIMEOUT_PROPERTY},
 * five minutes by default, as for MPI) aborts it and the job through the bootstrap.
 */
public final class NcclCommunicator implements Communicator {
    /** The environment variables launchers put a process's rank on its node in: Open MPI, MPICH, Slurm, torchrun. */
    static final String[] LOCAL_RANK_VARIABLES = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK"};
    private static final long POLL_NANOS = 20_000;

    private final Communicator bootstrap;
    private final CudaBackend backend;
    private final Driver driver;
    private final Nccl nccl;
    private final Duration timeout;
    private final Driver.Stream stream;
    private final long comm;
    private final boolean nativeAvg;
    private volatile boolean closed;
    private boolean aborted;
    /** Why the communicator can no longer be used (a collective failed or was aborted), or null. */
    private volatile String broken;

    private NcclCommunicator(Communicator bootstrap, CudaBackend backend, Nccl nccl, Duration timeout, byte[] uniqueId) {
        this.bootstrap = bootstrap;
        this.backend = backend;
        this.driver = backend.driver();
        this.nccl = nccl;
        this.timeout = timeout;
        this.nativeAvg = nccl.version() >= NcclTypes.FIRST_WITH_AVG;
        backend.enter();
        this.stream = driver.createStream();
        this.comm = nccl.commInitRank(bootstrap.size(), uniqueId, bootstrap.rank());
    }

    /**
     * NCCL over {@code bootstrap} for {@code backend}'s device, with the library of {@link NcclLibrary#here()}
     * and the timeout of {@value MpiCommunicator#TIMEOUT_PROPERTY}. Every rank of the bootstrap
     * calls it; when any rank cannot open NCCL (or its backend runs on no GPU) every rank gets an
     * {@link IllegalStateException}, the failing one naming the places searched, so none is left waiting.
     */
    public static NcclCommunicator create(Communicator bootstrap, CudaBackend backend) {
        Duration timeout = MpiCommunicator.timeout(System.getProperty(MpiCommunicator.TIMEOUT_PROPERTY));
        Nccl nccl = null;
        String failure = null;
        try {
            nccl = NcclLibrary.here().open();
            if (!(backend.driver() instanceof JCudaDriver)) {
                nccl = null;
                failure = "NCCL moves GPU memory; " + backend + " is no GPU";
            }
        } catch (RuntimeException e) {
            failure = e.getMessage();
        }
        double[] opened = {nccl == null ? 0 : 1};
        if (bootstrap.size() > 1) bootstrap.allReduce(opened, Reduction.MIN);
        if (failure != null) throw new IllegalStateException("NcclCommunicator on rank " + bootstrap.rank() + ": " + failure);
        if (opened[0] == 0) throw new IllegalStateException("NcclCommunicator on rank " + bootstrap.rank() + ": another rank could not open NCCL");
        return create(bootstrap, backend, nccl, timeout);
    }

    /** NCCL through {@code nccl} (the library, or a test's fake) over {@code bootstrap} for {@code backend}'s device. */
    public static NcclCommunicator create(Communicator bootstrap, CudaBackend backend, Nccl nccl, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("NcclCommunicator: timeout must be positive, got " + timeout);
        }
        backend.enter();
        return new NcclCommunicator(bootstrap, backend, nccl, timeout, broadcastUniqueId(bootstrap, backend, nccl));
    }

    /** Rank 0's {@code ncclGetUniqueId}, on every rank: its 128 bytes as 16 int64 elements broadcast by the bootstrap. */
    static byte[] broadcastUniqueId(Communicator bootstrap, CudaBackend backend, Nccl nccl) {
        long[] words = new long[Nccl.UNIQUE_ID_BYTES / Long.BYTES];
        if (bootstrap.rank() == 0) ByteBuffer.wrap(nccl.uniqueId()).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(words);
        Tensor id;
        try (Scope on = Backends.use(backend)) {
            id = Tensor.fromArray(words);
        }
        bootstrap.broadcast(id, 0).await();
        ByteBuffer bytes = ByteBuffer.allocate(Nccl.UNIQUE_ID_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asLongBuffer().put(id.toLongArray());
        return bytes.array();
    }

    /**
     * This process's rank among those of its node, which picks its GPU ({@code cuda:<local rank>}):
     * the first of {@code OMPI_COMM_WORLD_LOCAL_RANK}, {@code MPI_LOCALRANKID}, {@code SLURM_LOCALID},
     * {@code LOCAL_RANK} set in {@code env}; 0 when none is.
     */
    public static int localRank(Map<String, String> env) {
        for (String name : LOCAL_RANK_VARIABLES) {
            String value = env.get(name);
            if (value == null) continue;
            try {
                return Integer.parseInt(value.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + "=" + value + " is not a local rank");
            }
        }
        return 0;
    }

    @Override public int rank() { return bootstrap.rank(); }
    @Override public int size() { return bootstrap.size(); }
    @Override public String name() { return "nccl"; }

    /** The NCCL library in use, for reports: {@code "libnccl.so.2 2.27.3"}. */
    public String describe() { return nccl.describe(); }

    @Override
    public Work allReduce(Tensor buffer, Reduction op) {
        HostBuffers.checkAllReduce(buffer, op);
        long at = address("allReduce", "buffer", buffer);
        int type = NcclTypes.dataType("allReduce", buffer.dtype());
        boolean divide = op == Reduction.AVG && !nativeAvg;
        int ncclOp = NcclTypes.redOp(divide ? Reduction.SUM : op);
        String what = HostBuffers.describe("allReduce", buffer.dtype(), buffer.numel(), op, -1) + " of shape " + Arrays.toString(buffer.shape());
        return start(what, s -> nccl.allReduce(at, at, buffer.numel(), type, ncclOp, comm, s), divide ? buffer : null, buffer);
    }

    @Override
    public Work broadcast(Tensor buffer, int root) {
        HostBuffers.checkBroadcast(buffer, root, size());
        long at = address("broadcast", "buffer", buffer);
        int type = NcclTypes.dataType("broadcast", buffer.dtype());
        String what = HostBuffers.describe("broadcast", buffer.dtype(), buffer.numel(), null, root) + " of shape " + Arrays.toString(buffer.shape());
        return start(what, s -> nccl.broadcast(at, at, buffer.numel(), type, root, comm, s), null, buffer);
    }

    @Override
    public Work allGather(Tensor input, Tensor output) {
        HostBuffers.checkAllGather(input, output, size());
        long from = address("allGather", "input", input), to = address("allGather", "output", output);
        int type = NcclTypes.dataType("allGather", input.dtype());
        String what = HostBuffers.describe("allGather", input.dtype(), input.numel(), null, -1) + " of shape " + Arrays.toString(input.shape())
                + " into " + Arrays.toString(output.shape());
        return start(what, s -> nccl.allGather(from, to, input.numel(), type, comm, s), null, input, output);
    }

    @Override
    public Work reduceScatter(Tensor input, Tensor output, Reduction op) {
        HostBuffers.checkReduceScatter(input, output, op, size());
        long from = address("reduceScatter", "input", input), to = address("reduceScatter", "output", output);
        int type = NcclTypes.dataType("reduceScatter", input.dtype());
        boolean divide = op == Reduction.AVG && !nativeAvg;
        int ncclOp = NcclTypes.redOp(divide ? Reduction.SUM : op);
        String what = HostBuffers.describe("reduceScatter", input.dtype(), input.numel(), op, -1) + " of shape " + Arrays.toString(input.shape())
                + " into " + Arrays.toString(output.shape());
        return start(what, s -> nccl.reduceScatter(from, to, output.numel(), type, ncclOp, comm, s), divide ? output : null, input, output);
    }

    /** The bootstrap's barrier: NCCL has none, and ranks meeting on the host is what a barrier is for. */
    @Override
    public void barrier() {
        ensureUsable("barrier");
        bootstrap.barrier();
    }

    /** The bootstrap's host allReduce: a few doubles are no job for the GPU. */
    @Override
    public void allReduce(double[] values, Reduction op) {
        ensureUsable("allReduce(host)");
        bootstrap.allReduce(values, op);
    }

    /** Aborts the NCCL communicator (its kernels stop instead of waiting for peers), then the job through the bootstrap. */
    @Override
    public void abort(String message, int exitCode) {
        abortNccl("aborted: " + message);
        bootstrap.abort(message, exitCode);
    }

    /**
     * Destroys the NCCL communicator after its queued work (nothing to destroy after an abort) and its
     * stream; the bootstrap stays open, it belongs to the caller. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        backend.enter();
        try {
            if (!aborted) {
                int result = nccl.commDestroy(comm);
                if (result != NcclTypes.SUCCESS) throw failure("ncclCommDestroy", result);
            }
        } finally {
            driver.destroyStream(stream);
        }
    }

    // ---- one collective's life -----------------------------------------------------------------

    /** One NCCL call queued on a stream. */
    @FunctionalInterface
    private interface Call {
        int on(Driver.Stream stream);
    }

    /** Orders the NCCL stream after the backend's, queues {@code call}, and records the event its work waits for. */
    private Work start(String what, Call call, Tensor averaged, Tensor... tensors) {
        ensureUsable(what);
        backend.enter();
        Driver.Event ready = driver.record(backend.stream());
        driver.waitEvent(stream, ready);
        int result = call.on(stream);
        driver.destroyEvent(ready); // released once the wait is satisfied; the wait stays queued
        if (result != NcclTypes.SUCCESS) {
            CollectiveException e = failure(what, result);
            broken = e.getMessage();
            throw e;
        }
        return new NcclWork(this, what, driver.record(stream), averaged, tensors);
    }

    /**
     * Waits until {@code done} has completed, polling NCCL's asynchronous error: an error aborts
     * the NCCL communicator and is thrown; past the timeout the job is aborted.
     */
    void waitFor(String what, Driver.Event done) {
        backend.enter();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean complete = driver.isComplete(done);
            int async = nccl.commGetAsyncError(comm);
            if (async != NcclTypes.SUCCESS && async != NcclTypes.IN_PROGRESS) {
                CollectiveException e = failure(what, async);
                abortNccl(e.getMessage());
                throw e;
            }
            if (complete) return;
            if (System.nanoTime() - deadline > 0) timedOut(what);
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    boolean isComplete(Driver.Event done) {
        backend.enter();
        return driver.isComplete(done);
    }

    void release(Driver.Event done) {
        backend.enter();
        driver.destroyEvent(done);
    }

    /** AVG without {@code ncclAvg}: NCCL's float32 sum divided by the group size on the backend's stream, in place. */
    void divideBySize(Tensor target) {
        Tensor mean = target.div(size());
        try {
            backend.copyInto(target.storage(), target.layout(), mean.storage(), mean.layout());
        } finally {
            mean.storage().release();
        }
    }

    private void timedOut(String what) {
        String message = what + " did not complete within " + timeout + " (" + MpiCommunicator.TIMEOUT_PROPERTY + "); aborting the job";
        abortNccl(message);
        try {
            bootstrap.abort(message, MpiCommunicator.TIMEOUT_EXIT_CODE);
        } catch (CollectiveException aborted) {
            throw new CollectiveException("rank " + rank() + ": " + message, aborted);
        }
        throw new CollectiveException("rank " + rank() + ": " + message);
    }

    /** {@code ncclCommAbort} once (not after close); later collectives fail naming the first reason. */
    private synchronized void abortNccl(String why) {
        if (broken == null) broken = why;
        if (aborted || closed) return;
        aborted = true;
        backend.enter();
        nccl.commAbort(comm);
    }

    /** The device address of {@code t}'s first element; an error naming {@code op} unless {@code t} lives on this communicator's device. */
    private long address(String op, String role, Tensor t) {
        if (t.backend() != backend || !(t.storage() instanceof CudaStorage storage)) {
            throw new IllegalArgumentException(op + ": " + role + " of shape " + Arrays.toString(t.shape()) + " is on " + t.backend().device()
                    + "; the NCCL communicator of rank " + rank() + " exchanges tensors on " + backend.device() + " (move it with .to(\""
                    + backend.device() + "\"))");
        }
        return storage.address(t.layout().offset());
    }

    private CollectiveException failure(String what, int result) {
        String detail = nccl.lastError(comm);
        return new CollectiveException(what + " failed on rank " + rank() + " of " + size() + " (" + backend.device() + "): "
                + nccl.errorString(result) + " (" + NcclTypes.resultName(result) + (detail.isEmpty() ? "" : "; " + detail) + ")");
    }

    private void ensureUsable(String what) {
        String why = broken;
        if (why != null) throw new CollectiveException(what + ": rank " + rank() + "'s NCCL communicator can no longer be used: " + why);
        if (closed) throw new IllegalStateException(what + ": rank " + rank() + "'s communicator is closed");
    }
}
