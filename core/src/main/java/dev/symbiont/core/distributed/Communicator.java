package dev.symbiont.core.distributed;

import dev.symbiont.core.Tensor;

/**
 * A fixed group of ranks that exchange tensors: PyTorch's process group. Rank {@code r} of
 * {@code size} calls the same collectives in the same order as every other rank, each on
 * tensors of the same shape and dtype; collectives are matched by that order, not by name.
 *
 * <p>Tensor collectives work in place on contiguous tensors of the backend they live on and
 * are asynchronous: each returns a {@link Work} at once, and its tensors hold the result after
 * {@link Work#await()} (PyTorch's {@code async_op=True}). Supported dtypes are float32, int32
 * and int64; another dtype is an error naming the collective and the dtype. The host-scalar
 * {@link #allReduce(double[], Reduction)} is blocking, for the small agreements a training loop
 * needs each step (whether to stop, the logged loss).
 *
 * <p>Implementations: {@link LocalCommunicator} (ranks as threads of one JVM; the reference
 * twin every other implementation is tested against), MPI through {@code java.lang.foreign}
 * for processes on one machine or a cluster. {@link Communicators#world()} picks the one the
 * process was started under.
 *
 * <pre>{@code
 * try (Communicator world = Communicators.world()) {
 *     Tensor g = ...;                                   // the same shape on every rank
 *     world.allReduce(g, Reduction.AVG).await();        // g is now the mean over the ranks
 * }
 * }</pre>
 */
public interface Communicator extends AutoCloseable {
    /** This process's (or thread's) rank, 0 ≤ rank &lt; size. */
    int rank();

    /** The number of ranks in the group (PyTorch's world size). */
    int size();

    /** The implementation, for messages and reports: {@code "local"}, {@code "mpi"}. */
    String name();

    /**
     * Reduces {@code buffer} over every rank in place: afterwards each rank's buffer holds the
     * same result. {@code buffer}: any shape, contiguous, the same shape and dtype on every rank.
     */
    Work allReduce(Tensor buffer, Reduction op);

    /** Copies {@code root}'s {@code buffer} into every other rank's {@code buffer} (same shape and dtype). */
    Work broadcast(Tensor buffer, int root);

    /**
     * Gathers every rank's {@code input} into {@code output} in rank order.
     * {@code input}: (n) elements, any shape; {@code output}: (size · n) elements, contiguous.
     */
    Work allGather(Tensor input, Tensor output);

    /**
     * Reduces {@code input} over every rank and leaves this rank's share in {@code output}:
     * rank r receives elements [r·n, (r+1)·n) of the reduction.
     * {@code input}: (size · n) elements, contiguous; {@code output}: (n) elements, contiguous.
     */
    Work reduceScatter(Tensor input, Tensor output, Reduction op);

    /** Returns once every rank has called it. */
    void barrier();

    /**
     * Reduces a few host values over every rank, blocking: afterwards {@code values} holds the
     * same result on every rank. The same length on every rank.
     */
    void allReduce(double[] values, Reduction op);

    /**
     * Ends every rank of the job: prints {@code message} (prefixed with this rank) to standard
     * error and brings the other ranks down instead of leaving them waiting in a collective
     * (MPI's {@code MPI_Abort}). For failures one rank sees and the others cannot.
     * Never returns normally.
     */
    void abort(String message, int exitCode);

    /** Releases the group; collectives after it are errors. Idempotent. */
    @Override
    void close();
}
