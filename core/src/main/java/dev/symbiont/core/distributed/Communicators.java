package dev.symbiont.core.distributed;

import dev.symbiont.core.distributed.mpi.MpiCommunicator;
import dev.symbiont.core.distributed.mpi.MpiLaunch;

/**
 * The communicator this process was started under: PyTorch's {@code init_process_group} with the
 * backend chosen from the environment. Outside a launcher it is a group of one rank, so code
 * written for several ranks runs unchanged on one.
 *
 * <pre>{@code
 * mpirun -np 4 java ... Train      // Communicators.world() is rank r of 4 in each process
 * java ... Train                   // Communicators.world() is rank 0 of 1
 * }</pre>
 * (see {@link dev.symbiont.core.distributed.mpi.MpiRun} for the full command line).
 *
 * <p>The world stays MPI, which exchanges tensors of any backend through host memory. For tensors
 * on GPUs, NCCL goes on top of it with the world as its bootstrap (module {@code backend-cuda}):
 * <pre>{@code
 * CudaBackend gpu = (CudaBackend) Backends.get("cuda:" + NcclCommunicator.localRank(System.getenv()));
 * Communicator nccl = NcclCommunicator.create(Communicators.world(), gpu);   // GPU to GPU; host values still over MPI
 * }</pre>
 */
public final class Communicators {
    private Communicators() {}

    /** A group of this process alone: rank 0 of 1, every collective a no-op copy. */
    public static Communicator single() { return LocalCommunicator.group(1).get(0); }

    private static Communicator mpiWorld;

    /**
     * The group this process belongs to: {@link MpiCommunicator} when an MPI launcher started it
     * (its environment says so, see {@link MpiLaunch}), created on the first call and the same
     * object afterwards (MPI is initialised once per process, so once closed it stays closed);
     * otherwise a fresh {@link #single()}. A launched process whose MPI library cannot be
     * initialised gets the error, not a silent single rank that would train alone.
     */
    public static synchronized Communicator world() {
        if (MpiLaunch.launcher(System.getenv()).isEmpty()) return single();
        if (mpiWorld == null) mpiWorld = MpiCommunicator.create();
        return mpiWorld;
    }
}
