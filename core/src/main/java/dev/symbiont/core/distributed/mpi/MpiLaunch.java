package dev.symbiont.core.distributed.mpi;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Whether this process was started by an MPI launcher, read from the environment the launcher
 * sets: Open MPI's {@code mpirun} ({@code OMPI_COMM_WORLD_RANK}, {@code OMPI_COMM_WORLD_SIZE}),
 * a PMIx launcher such as Slurm's {@code srun --mpi=pmix} ({@code PMIX_RANK}), MPICH's Hydra
 * ({@code PMI_RANK}, {@code PMI_SIZE}).
 */
public final class MpiLaunch {
    /** The variables a launcher sets in each rank's environment, the rank's own first. */
    static final List<String> RANK_VARIABLES = List.of("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK");
    private static final List<String> SIZE_VARIABLES = List.of("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");

    private MpiLaunch() {}

    /** The first launcher variable set in {@code env}, as {@code NAME=value}; empty outside a launcher. */
    public static Optional<String> launcher(Map<String, String> env) {
        for (String name : RANK_VARIABLES) if (env.get(name) != null) return Optional.of(name + "=" + env.get(name));
        for (String name : SIZE_VARIABLES) if (env.get(name) != null) return Optional.of(name + "=" + env.get(name));
        return Optional.empty();
    }

    /** The rank the launcher gave this process, before MPI is initialised (for messages); empty when none or unreadable. */
    public static OptionalInt rank(Map<String, String> env) {
        for (String name : RANK_VARIABLES) {
            String v = env.get(name);
            if (v == null) continue;
            try {
                return OptionalInt.of(Integer.parseInt(v.strip()));
            } catch (NumberFormatException e) {
                return OptionalInt.empty();
            }
        }
        return OptionalInt.empty();
    }
}
