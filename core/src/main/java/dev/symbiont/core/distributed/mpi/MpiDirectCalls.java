package dev.symbiont.core.distributed.mpi;

import java.lang.foreign.MemorySegment;

/**
 * {@code MPI_Allreduce} and {@code MPI_Barrier} of a communicator's bound library, called on the
 * caller's thread on caller-owned off-heap memory: no staging copy, no hand-off to the MPI
 * thread. This is what the {@code java.lang.foreign} binding itself costs over the same calls
 * from C, which the all-reduce benchmark ({@code benchmarks/mpi-allreduce.sh}) measures;
 * training code uses the communicator's tensor collectives.
 *
 * <p>MPI is initialised {@code MPI_THREAD_SERIALIZED}: one thread in MPI at a time. So the
 * caller must have no collective of the communicator outstanding (every {@code Work} awaited)
 * while it makes these calls, and every rank must make them in the same order.
 */
public final class MpiDirectCalls {
    private final MpiCommunicator comm;
    private final MpiCalls mpi;
    private final OpenMpiHandles handles;

    private MpiDirectCalls(MpiCommunicator comm) {
        this.comm = comm;
        this.mpi = comm.calls();
        this.handles = comm.handles();
    }

    /** The direct calls of {@code comm}'s library on its {@code MPI_COMM_WORLD}. */
    public static MpiDirectCalls of(MpiCommunicator comm) {
        if (comm == null) throw new IllegalArgumentException("MpiDirectCalls: communicator must not be null");
        comm.ensureOpen("MpiDirectCalls");
        return new MpiDirectCalls(comm);
    }

    /**
     * {@code MPI_Allreduce(MPI_IN_PLACE, buffer, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)}.
     * {@code buffer}: native memory holding at least {@code count} float32 values.
     *
     * @throws dev.symbiont.core.distributed.CollectiveException with MPI's error text when the call fails
     */
    public void allReduceSumInPlace(MemorySegment buffer, int count) {
        if (buffer == null || !buffer.isNative() || count < 0 || (long) count * Float.BYTES > buffer.byteSize()) {
            throw new IllegalArgumentException("MpiDirectCalls.allReduceSumInPlace: count " + count + " float32 values need a native segment of at least "
                    + (long) count * Float.BYTES + " bytes, got " + (buffer == null ? "null" : (buffer.isNative() ? "" : "a heap segment of ")
                    + buffer.byteSize() + " bytes"));
        }
        comm.ensureOpen("MpiDirectCalls.allReduceSumInPlace");
        mpi.allReduceInPlace(buffer, count, handles.float32(), handles.sum(), handles.commWorld());
    }

    /** {@code MPI_Barrier(MPI_COMM_WORLD)}. */
    public void barrier() {
        comm.ensureOpen("MpiDirectCalls.barrier");
        mpi.barrier(handles.commWorld());
    }
}
