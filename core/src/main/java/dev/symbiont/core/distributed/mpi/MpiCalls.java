package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.distributed.CollectiveException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The MPI functions Symbiont calls, one Java method each, with the C signature of the MPI
 * standard. A non-zero return code becomes a {@link CollectiveException} carrying MPI's own
 * {@code MPI_Error_string} (codes are returned rather than fatal once the communicator's error
 * handler is {@code MPI_ERRORS_RETURN}). Handles (communicator, datatype, operation) are passed
 * in as addresses; see {@link OpenMpiHandles}.
 */
final class MpiCalls {
    /** {@code MPI_THREAD_SERIALIZED}: the same value in Open MPI's and MPICH's {@code mpi.h}. */
    static final int THREAD_SERIALIZED = 2;
    private static final int SUCCESS = 0;
    /** Open MPI's {@code MPI_MAX_ERROR_STRING}. */
    private static final int MAX_ERROR_STRING = 256;
    /** Room for any implementation's {@code MPI_MAX_LIBRARY_VERSION_STRING} (Open MPI 256, MPICH 8192). */
    private static final int MAX_LIBRARY_VERSION_STRING = 8192;

    private static final FunctionDescriptor INT_OF_POINTER = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    private static final FunctionDescriptor INT_OF_TWO_POINTERS = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);

    private final MethodHandle initThread, initialized, finalized, finalizeCall, abort;
    private final MethodHandle commRank, commSize, commSetErrhandler, errorString, libraryVersion;
    private final MethodHandle allreduce, bcast, allgather, reduceScatterBlock, barrier;
    private final MethodHandle iallreduce, test;

    MpiCalls(MpiLibrary lib) {
        // int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
        initThread = lib.function("MPI_Init_thread", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        initialized = lib.function("MPI_Initialized", INT_OF_POINTER);
        finalized = lib.function("MPI_Finalized", INT_OF_POINTER);
        finalizeCall = lib.function("MPI_Finalize", FunctionDescriptor.of(JAVA_INT));
        abort = lib.function("MPI_Abort", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        commRank = lib.function("MPI_Comm_rank", INT_OF_TWO_POINTERS);
        commSize = lib.function("MPI_Comm_size", INT_OF_TWO_POINTERS);
        commSetErrhandler = lib.function("MPI_Comm_set_errhandler", INT_OF_TWO_POINTERS);
        errorString = lib.function("MPI_Error_string", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        libraryVersion = lib.function("MPI_Get_library_version", INT_OF_TWO_POINTERS);
        // int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype, MPI_Op, MPI_Comm)
        allreduce = lib.function("MPI_Allreduce", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        // int MPI_Bcast(void *buffer, int count, MPI_Datatype, int root, MPI_Comm)
        bcast = lib.function("MPI_Bcast", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        // int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype, void *recvbuf, int recvcount, MPI_Datatype, MPI_Comm)
        allgather = lib.function("MPI_Allgather",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        // int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype, MPI_Op, MPI_Comm)
        reduceScatterBlock = lib.function("MPI_Reduce_scatter_block",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        barrier = lib.function("MPI_Barrier", INT_OF_POINTER);
        // int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *)
        iallreduce = lib.function("MPI_Iallreduce",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        // int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
        test = lib.function("MPI_Test", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    /** {@code MPI_Get_library_version}: callable before {@code MPI_Init}, names the implementation. */
    String libraryVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment text = a.allocate(MAX_LIBRARY_VERSION_STRING);
            MemorySegment length = a.allocate(JAVA_INT);
            checked("MPI_Get_library_version", () -> (int) libraryVersion.invokeExact(text, length));
            return string(text, length.get(JAVA_INT, 0));
        }
    }

    /** {@code MPI_Init_thread(NULL, NULL, required, &provided)}; returns {@code provided}. */
    int initThread(int required) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment provided = a.allocate(JAVA_INT);
            checked("MPI_Init_thread",
                    () -> (int) initThread.invokeExact(MemorySegment.NULL, MemorySegment.NULL, required, provided));
            return provided.get(JAVA_INT, 0);
        }
    }

    /** {@code MPI_Initialized}: any thread, any time. */
    boolean initialized() { return flag("MPI_Initialized", initialized); }

    /** {@code MPI_Finalized}: any thread, any time. */
    boolean finalized() { return flag("MPI_Finalized", finalized); }

    void finalizeMpi() { checked("MPI_Finalize", () -> (int) finalizeCall.invokeExact()); }

    /** {@code MPI_Abort}: ends every process of {@code comm}'s job with {@code code}; returns only if MPI could not. */
    void abort(MemorySegment comm, int code) { call("MPI_Abort", () -> (int) abort.invokeExact(comm, code)); }

    int rank(MemorySegment comm) { return intOut("MPI_Comm_rank", commRank, comm); }

    int size(MemorySegment comm) { return intOut("MPI_Comm_size", commSize, comm); }

    void setErrorHandler(MemorySegment comm, MemorySegment handler) {
        checked("MPI_Comm_set_errhandler", () -> (int) commSetErrhandler.invokeExact(comm, handler));
    }

    /** {@code MPI_Allreduce(MPI_IN_PLACE, buffer, count, type, op, comm)}. */
    void allReduceInPlace(MemorySegment buffer, int count, MemorySegment type, MemorySegment op, MemorySegment comm) {
        checked("MPI_Allreduce", () -> (int) allreduce.invokeExact(OpenMpiHandles.IN_PLACE, buffer, count, type, op, comm));
    }

    /**
     * {@code MPI_Iallreduce(MPI_IN_PLACE, buffer, count, type, op, comm, request)}: starts the
     * reduction and stores its request handle in {@code request} (a pointer-sized slot).
     */
    void allReduceInPlaceStart(MemorySegment buffer, int count, MemorySegment type, MemorySegment op, MemorySegment comm,
                               MemorySegment request) {
        checked("MPI_Iallreduce", () -> (int) iallreduce.invokeExact(OpenMpiHandles.IN_PLACE, buffer, count, type, op, comm, request));
    }

    /**
     * {@code MPI_Test(request, &flag, MPI_STATUS_IGNORE)}: drives MPI's progress once and says
     * whether the request completed (MPI then frees it and resets the slot).
     */
    boolean test(MemorySegment request, MemorySegment flag) {
        checked("MPI_Test", () -> (int) test.invokeExact(request, flag, OpenMpiHandles.STATUS_IGNORE));
        return flag.get(JAVA_INT, 0) != 0;
    }

    /** {@code MPI_Bcast(buffer, count, type, root, comm)}. */
    void broadcast(MemorySegment buffer, int count, MemorySegment type, int root, MemorySegment comm) {
        checked("MPI_Bcast", () -> (int) bcast.invokeExact(buffer, count, type, root, comm));
    }

    /** {@code MPI_Allgather(MPI_IN_PLACE, 0, type, buffer, countPerRank, type, comm)}: this rank's part already sits at rank · countPerRank. */
    void allGatherInPlace(MemorySegment buffer, int countPerRank, MemorySegment type, MemorySegment comm) {
        checked("MPI_Allgather", () -> (int) allgather.invokeExact(OpenMpiHandles.IN_PLACE, 0, type, buffer, countPerRank, type, comm));
    }

    /** {@code MPI_Reduce_scatter_block(MPI_IN_PLACE, buffer, countPerRank, type, op, comm)}: this rank's share lands at the start of buffer. */
    void reduceScatterBlockInPlace(MemorySegment buffer, int countPerRank, MemorySegment type, MemorySegment op, MemorySegment comm) {
        checked("MPI_Reduce_scatter_block",
                () -> (int) reduceScatterBlock.invokeExact(OpenMpiHandles.IN_PLACE, buffer, countPerRank, type, op, comm));
    }

    void barrier(MemorySegment comm) { checked("MPI_Barrier", () -> (int) barrier.invokeExact(comm)); }

    /** MPI's text for {@code code}, or just the number when MPI cannot say. */
    String errorString(int code) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment text = a.allocate(MAX_ERROR_STRING);
            MemorySegment length = a.allocate(JAVA_INT);
            int rc = call("MPI_Error_string", () -> (int) errorString.invokeExact(code, text, length));
            return rc == SUCCESS ? string(text, length.get(JAVA_INT, 0)) : "MPI error " + code;
        }
    }

    // ---- plumbing --------------------------------------------------------------------------------

    @FunctionalInterface
    private interface Call {
        int invoke() throws Throwable;
    }

    private void checked(String function, Call call) {
        int rc = call(function, call);
        if (rc != SUCCESS) throw new CollectiveException(function + " failed: " + errorString(rc) + " (MPI error code " + rc + ")");
    }

    private static int call(String function, Call call) {
        try {
            return call.invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(function + ": " + t, t);
        }
    }

    private boolean flag(String function, MethodHandle handle) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment flag = a.allocate(JAVA_INT);
            checked(function, () -> (int) handle.invokeExact(flag));
            return flag.get(JAVA_INT, 0) != 0;
        }
    }

    private int intOut(String function, MethodHandle handle, MemorySegment comm) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            checked(function, () -> (int) handle.invokeExact(comm, out));
            return out.get(JAVA_INT, 0);
        }
    }

    private static String string(MemorySegment text, int length) {
        int n = Math.clamp(length, 0, (int) text.byteSize());
        return new String(text.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8).strip();
    }
}
