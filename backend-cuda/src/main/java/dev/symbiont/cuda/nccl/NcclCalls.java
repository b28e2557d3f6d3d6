package dev.symbiont.cuda.nccl;

import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.jcuda.JCudaDriver;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link Nccl} bound in {@code libnccl.so.2} with {@code java.lang.foreign}, one downcall per C
 * function of {@code nccl.h}. {@code ncclUniqueId} is a struct of 128 chars that
 * {@code ncclCommInitRank} takes by value, so its descriptor carries the struct layout (the
 * linker passes it in memory, as the C ABI says for a struct that large); {@code size_t} is a
 * {@code long}, the enums are {@code int}s and {@code cudaStream_t} is the raw {@code CUstream}
 * of a {@link JCudaDriver} stream (the runtime's and the driver's stream handles are the same).
 */
final class NcclCalls implements Nccl {
    /** {@code typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;} */
    static final StructLayout UNIQUE_ID = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(UNIQUE_ID_BYTES, JAVA_BYTE).withName("internal")).withName("ncclUniqueId");
    /** {@code ncclGetVersion(int*)}, {@code ncclGetUniqueId(ncclUniqueId*)}, {@code ncclCommDestroy/Abort(ncclComm_t)}. */
    static final FunctionDescriptor RESULT_OF_POINTER = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    /** {@code ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank)}. */
    static final FunctionDescriptor COMM_INIT_RANK = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, UNIQUE_ID, JAVA_INT);
    /** {@code ncclCommGetAsyncError(ncclComm_t, ncclResult_t*)}. */
    static final FunctionDescriptor COMM_GET_ASYNC_ERROR = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    /**
     * {@code ncclAllReduce / ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t)},
     * and {@code ncclBroadcast}, whose {@code int root} sits where the reduction does.
     */
    static final FunctionDescriptor REDUCTION = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    /** {@code ncclAllGather(const void* send, void* recv, size_t sendcount, ncclDataType_t, ncclComm_t, cudaStream_t)}. */
    static final FunctionDescriptor ALL_GATHER = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS);
    /** {@code const char* ncclGetErrorString(ncclResult_t)}. */
    static final FunctionDescriptor ERROR_STRING = FunctionDescriptor.of(ADDRESS, JAVA_INT);
    /** {@code const char* ncclGetLastError(ncclComm_t)}. */
    static final FunctionDescriptor LAST_ERROR = FunctionDescriptor.of(ADDRESS, ADDRESS);
    /** Longest C string read back from NCCL. */
    private static final long MAX_STRING = 4096;

    private final String library;
    private final MethodHandle getVersion, getUniqueId, commInitRank, commDestroy, commAbort, commGetAsyncError;
    private final MethodHandle allReduce, broadcast, allGather, reduceScatter, errorString;
    private final Optional<MethodHandle> lastError;
    private final int version;

    private NcclCalls(String library, SymbolLookup lookup) {
        this.library = library;
        Linker linker = Linker.nativeLinker();
        getVersion = bind(linker, lookup, "ncclGetVersion", RESULT_OF_POINTER);
        getUniqueId = bind(linker, lookup, "ncclGetUniqueId", RESULT_OF_POINTER);
        commInitRank = bind(linker, lookup, "ncclCommInitRank", COMM_INIT_RANK);
        commDestroy = bind(linker, lookup, "ncclCommDestroy", RESULT_OF_POINTER);
        commAbort = bind(linker, lookup, "ncclCommAbort", RESULT_OF_POINTER);
        commGetAsyncError = bind(linker, lookup, "ncclCommGetAsyncError", COMM_GET_ASYNC_ERROR);
        allReduce = bind(linker, lookup, "ncclAllReduce", REDUCTION);
        broadcast = bind(linker, lookup, "ncclBroadcast", REDUCTION);
        allGather = bind(linker, lookup, "ncclAllGather", ALL_GATHER);
        reduceScatter = bind(linker, lookup, "ncclReduceScatter", REDUCTION);
        errorString = bind(linker, lookup, "ncclGetErrorString", ERROR_STRING);
        lastError = lookup.find("ncclGetLastError").map(s -> linker.downcallHandle(s, LAST_ERROR)); // NCCL 2.13 on
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            checked("ncclGetVersion", call(() -> (int) getVersion.invokeExact(out)));
            version = out.get(JAVA_INT, 0);
        }
    }

    /** Opens {@code library} (a path, or a soname for the loader to find) and binds every function; an error naming what is missing. */
    static NcclCalls open(String library) {
        SymbolLookup lookup = library.contains("/") ? SymbolLookup.libraryLookup(Path.of(library), Arena.global())
                : SymbolLookup.libraryLookup(library, Arena.global());
        return new NcclCalls(library, lookup);
    }

    @Override public String describe() { return library + " " + NcclTypes.versionString(version); }

    @Override public int version() { return version; }

    @Override
    public byte[] uniqueId() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = a.allocate(UNIQUE_ID);
            checked("ncclGetUniqueId", call(() -> (int) getUniqueId.invokeExact(id)));
            return id.toArray(JAVA_BYTE);
        }
    }

    @Override
    public long commInitRank(int nranks, byte[] uniqueId, int rank) {
        if (uniqueId.length != UNIQUE_ID_BYTES) {
            throw new IllegalArgumentException("ncclCommInitRank: a unique id is " + UNIQUE_ID_BYTES + " bytes, got " + uniqueId.length);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment comm = a.allocate(ADDRESS);
            MemorySegment id = a.allocate(UNIQUE_ID).copyFrom(MemorySegment.ofArray(uniqueId));
            checked("ncclCommInitRank", call(() -> (int) commInitRank.invokeExact(comm, nranks, id, rank)));
            return comm.get(ADDRESS, 0).address();
        }
    }

    @Override public int commDestroy(long comm) { return call(() -> (int) commDestroy.invokeExact(handle(comm))); }

    @Override public int commAbort(long comm) { return call(() -> (int) commAbort.invokeExact(handle(comm))); }

    @Override
    public int commGetAsyncError(long comm) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment error = a.allocate(JAVA_INT);
            checked("ncclCommGetAsyncError", call(() -> (int) commGetAsyncError.invokeExact(handle(comm), error)));
            return error.get(JAVA_INT, 0);
        }
    }

    @Override
    public int allReduce(long send, long recv, long count, int dataType, int op, long comm, Driver.Stream stream) {
        return call(() -> (int) allReduce.invokeExact(handle(send), handle(recv), count, dataType, op, handle(comm), stream(stream)));
    }

    @Override
    public int broadcast(long send, long recv, long count, int dataType, int root, long comm, Driver.Stream stream) {
        return call(() -> (int) broadcast.invokeExact(handle(send), handle(recv), count, dataType, root, handle(comm), stream(stream)));
    }

    @Override
    public int allGather(long send, long recv, long sendCount, int dataType, long comm, Driver.Stream stream) {
        return call(() -> (int) allGather.invokeExact(handle(send), handle(recv), sendCount, dataType, handle(comm), stream(stream)));
    }

    @Override
    public int reduceScatter(long send, long recv, long recvCount, int dataType, int op, long comm, Driver.Stream stream) {
        return call(() -> (int) reduceScatter.invokeExact(handle(send), handle(recv), recvCount, dataType, op, handle(comm), stream(stream)));
    }

    @Override
    public String errorString(int result) {
        MemorySegment text = callForAddress(() -> (MemorySegment) errorString.invokeExact(result));
        return text.equals(MemorySegment.NULL) ? NcclTypes.resultName(result) : text.reinterpret(MAX_STRING).getString(0);
    }

    @Override
    public String lastError(long comm) {
        if (lastError.isEmpty()) return "";
        MethodHandle h = lastError.get();
        MemorySegment text = callForAddress(() -> (MemorySegment) h.invokeExact(handle(comm)));
        return text.equals(MemorySegment.NULL) ? "" : text.reinterpret(MAX_STRING).getString(0).strip();
    }

    // ---- plumbing --------------------------------------------------------------------------------

    @FunctionalInterface
    private interface Call<T> {
        T invoke() throws Throwable;
    }

    private static MemorySegment handle(long address) { return MemorySegment.ofAddress(address); }

    private static MemorySegment stream(Driver.Stream stream) { return MemorySegment.ofAddress(JCudaDriver.streamAddress(stream)); }

    private void checked(String function, int result) {
        if (result != NcclTypes.SUCCESS) throw new NcclException(function, result, errorString(result));
    }

    private static int call(Call<Integer> call) { return invoke(call); }

    private static MemorySegment callForAddress(Call<MemorySegment> call) { return invoke(call); }

    private static <T> T invoke(Call<T> call) {
        try {
            return call.invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("NCCL call: " + t, t);
        }
    }

    private MethodHandle bind(Linker linker, SymbolLookup lookup, String name, FunctionDescriptor descriptor) {
        return linker.downcallHandle(lookup.find(name).orElseThrow(() -> new IllegalStateException(library + " has no symbol " + name)),
                descriptor);
    }
}
