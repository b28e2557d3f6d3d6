package dev.symbiont.cuda.nccl;

import dev.symbiont.cuda.driver.Driver;

/**
 * The NCCL functions {@link NcclCommunicator} calls, in C's shape: device buffers as addresses,
 * counts in elements, enums as {@code int} ({@link NcclTypes}), a communicator as the address
 * {@code ncclCommInitRank} returned. {@code NcclCalls} binds them in {@code libnccl.so.2}; tests
 * give the communicator a fake over the PTX interpreter's device memory.
 *
 * <p>The functions that produce a value throw {@link NcclException} when NCCL fails; the others
 * return {@code ncclResult_t}, so the caller can name the collective, the rank and the shapes.
 * Collectives are queued on {@code stream} and return before the data has moved.
 */
public interface Nccl {
    /** {@code NCCL_UNIQUE_ID_BYTES}: the size of {@code ncclUniqueId}. */
    int UNIQUE_ID_BYTES = 128;

    /** Which library this is, for messages ({@code "libnccl.so.2 2.27.3"}). */
    String describe();

    /** {@code ncclGetVersion}: {@code NCCL_VERSION_CODE}, e.g. 22703 for 2.27.3. */
    int version();

    /** {@code ncclGetUniqueId}: the {@value #UNIQUE_ID_BYTES} bytes every rank of a new communicator is given. */
    byte[] uniqueId();

    /**
     * {@code ncclCommInitRank(&comm, nranks, uniqueId, rank)} on the calling thread's current device;
     * returns {@code comm}. Blocks until every rank has called it.
     */
    long commInitRank(int nranks, byte[] uniqueId, int rank);

    /** {@code ncclCommDestroy}: after the queued work. */
    int commDestroy(long comm);

    /** {@code ncclCommAbort}: stops the queued work and frees the communicator. */
    int commAbort(long comm);

    /** The error {@code ncclCommGetAsyncError} reports for {@code comm} ({@code ncclSuccess} while healthy). */
    int commGetAsyncError(long comm);

    /** {@code ncclAllReduce}; {@code send == recv} is in place. */
    int allReduce(long send, long recv, long count, int dataType, int op, long comm, Driver.Stream stream);

    /** {@code ncclBroadcast}; {@code send == recv} is in place. */
    int broadcast(long send, long recv, long count, int dataType, int root, long comm, Driver.Stream stream);

    /** {@code ncclAllGather}: {@code sendCount} elements from each rank into {@code recv}, in rank order. */
    int allGather(long send, long recv, long sendCount, int dataType, long comm, Driver.Stream stream);

    /** {@code ncclReduceScatter}: rank r receives elements [r·recvCount, (r+1)·recvCount) of the reduction. */
    int reduceScatter(long send, long recv, long recvCount, int dataType, int op, long comm, Driver.Stream stream);

    /** {@code ncclGetErrorString}. */
    String errorString(int result);

    /** {@code ncclGetLastError(comm)} (NCCL 2.13 on): the detail behind the last failure; empty when there is none. */
    String lastError(long comm);
}
