package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.DType;
import dev.symbiont.core.distributed.Reduction;

import java.lang.foreign.MemorySegment;

/**
 * Open MPI's predefined handles. Its {@code mpi.h} defines {@code MPI_COMM_WORLD},
 * {@code MPI_FLOAT}, {@code MPI_SUM} ... as the addresses of global objects
 * ({@code &ompi_mpi_comm_world}), so they are looked up by symbol; MPICH and its derivatives
 * use integer constants instead, which this binding does not guess, so {@link #resolve} refuses
 * any library that does not report itself as Open MPI.
 *
 * @param commWorld    {@code MPI_COMM_WORLD}
 * @param float32      {@code MPI_FLOAT}
 * @param int32        {@code MPI_INT}
 * @param int64        {@code MPI_INT64_T}
 * @param float64      {@code MPI_DOUBLE}
 * @param sum          {@code MPI_SUM}
 * @param max          {@code MPI_MAX}
 * @param min          {@code MPI_MIN}
 * @param errorsReturn {@code MPI_ERRORS_RETURN}
 */
record OpenMpiHandles(MemorySegment commWorld, MemorySegment float32, MemorySegment int32, MemorySegment int64,
                      MemorySegment float64, MemorySegment sum, MemorySegment max, MemorySegment min,
                      MemorySegment errorsReturn) {
    /** {@code MPI_IN_PLACE}: Open MPI's {@code ((void *) 1)}. */
    static final MemorySegment IN_PLACE = MemorySegment.ofAddress(1);
    /** {@code MPI_STATUS_IGNORE}: Open MPI's {@code ((MPI_Status *) 0)}. */
    static final MemorySegment STATUS_IGNORE = MemorySegment.NULL;

    /**
     * Open MPI's handles in {@code library}, whose {@code MPI_Get_library_version} said
     * {@code version}; an {@link IllegalStateException} naming the implementation found when it
     * is not Open MPI.
     */
    static OpenMpiHandles resolve(MpiLibrary library, String version) {
        String implementation = implementationOf(version);
        if (!implementation.equals("Open MPI")) {
            throw new IllegalStateException(library.name() + " is " + implementation + " (\"" + firstLine(version) + "\"), not Open MPI. "
                    + "Symbiont binds Open MPI, whose handles are addresses of global symbols; " + implementation
                    + "'s handles are integer constants it does not guess. Install Open MPI (Debian/Ubuntu: apt-get install openmpi-bin), "
                    + "launch with its mpirun, or point -D" + MpiLibrary.PROPERTY + " at its libmpi.so.40");
        }
        return new OpenMpiHandles(library.symbol("ompi_mpi_comm_world"), library.symbol("ompi_mpi_float"),
                library.symbol("ompi_mpi_int"), library.symbol("ompi_mpi_int64_t"), library.symbol("ompi_mpi_double"),
                library.symbol("ompi_mpi_op_sum"), library.symbol("ompi_mpi_op_max"), library.symbol("ompi_mpi_op_min"),
                library.symbol("ompi_mpi_errors_return"));
    }

    /** The implementation an {@code MPI_Get_library_version} string names: "Open MPI", "MPICH", "Intel MPI", ... */
    static String implementationOf(String version) {
        String v = version == null ? "" : version.strip();
        if (v.startsWith("Open MPI")) return "Open MPI";
        if (v.contains("Intel(R) MPI")) return "Intel MPI";
        if (v.startsWith("MVAPICH")) return "MVAPICH";
        if (v.contains("MPICH")) return "MPICH";
        return "an unknown MPI";
    }

    /** The datatype of a tensor's elements; only the dtypes collectives exchange have one. */
    MemorySegment datatype(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> float32;
            case INT32 -> int32;
            case INT64 -> int64;
            default -> throw new IllegalArgumentException("MPI: no datatype for " + dtype + "; collectives exchange float32, int32 and int64");
        };
    }

    /** The MPI operation that carries out {@code reduction}; AVG is a SUM divided afterwards. */
    MemorySegment op(Reduction reduction) {
        return switch (reduction) {
            case SUM, AVG -> sum;
            case MAX -> max;
            case MIN -> min;
        };
    }

    private static String firstLine(String s) {
        String t = s == null ? "" : s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }
}
