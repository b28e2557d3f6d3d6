package dev.symbiont.cuda.nccl;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The C signatures {@link NcclCalls} binds, checked without the library: {@code ncclUniqueId} is
 * 128 chars passed by value, and a call through the native linker with
 * {@code ncclCommInitRank}'s descriptor (into an upcall stub standing in for NCCL) delivers the
 * 128 bytes and the ints around them intact.
 */
class NcclCallsLayoutTest {
    @Test
    void theUniqueIdIsAStructOf128Chars() {
        assertEquals(128, NcclCalls.UNIQUE_ID.byteSize());
        assertEquals(1, NcclCalls.UNIQUE_ID.byteAlignment(), "chars only: no padding, byte alignment");
        assertEquals(MemoryLayout.sequenceLayout(128, JAVA_BYTE).withName("internal"), NcclCalls.UNIQUE_ID.memberLayouts().getFirst());
    }

    @Test
    void theDescriptorsMatchNcclH() {
        assertEquals(List.of(ADDRESS, JAVA_INT, NcclCalls.UNIQUE_ID, JAVA_INT), NcclCalls.COMM_INIT_RANK.argumentLayouts());
        assertEquals(List.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), NcclCalls.REDUCTION.argumentLayouts());
        assertEquals(List.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS), NcclCalls.ALL_GATHER.argumentLayouts());
        assertEquals(List.of(ADDRESS, ADDRESS), NcclCalls.COMM_GET_ASYNC_ERROR.argumentLayouts());
        for (FunctionDescriptor d : List.of(NcclCalls.RESULT_OF_POINTER, NcclCalls.COMM_INIT_RANK, NcclCalls.COMM_GET_ASYNC_ERROR,
                NcclCalls.REDUCTION, NcclCalls.ALL_GATHER)) {
            assertEquals(JAVA_INT, d.returnLayout().orElseThrow(), "ncclResult_t is an int: " + d);
        }
        assertEquals(ADDRESS, NcclCalls.ERROR_STRING.returnLayout().orElseThrow());
        assertEquals(List.of(JAVA_INT), NcclCalls.ERROR_STRING.argumentLayouts());
    }

    /** What the stand-in for {@code ncclCommInitRank} received. */
    private static byte[] receivedId;
    private static int receivedRanks, receivedRank;

    @SuppressWarnings("unused") // called through the upcall stub
    private static int initRank(MemorySegment comm, int nranks, MemorySegment id, int rank) {
        receivedId = id.toArray(JAVA_BYTE);
        receivedRanks = nranks;
        receivedRank = rank;
        comm.reinterpret(ADDRESS.byteSize()).set(ADDRESS, 0, MemorySegment.ofAddress(0xC0FFEE));
        return 0;
    }

    @Test
    void aUniqueIdPassedByValueArrivesWhole() throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle target = MethodHandles.lookup().findStatic(NcclCallsLayoutTest.class, "initRank",
                MethodType.methodType(int.class, MemorySegment.class, int.class, MemorySegment.class, int.class));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stub = linker.upcallStub(target, NcclCalls.COMM_INIT_RANK, arena);
            MethodHandle call = linker.downcallHandle(stub, NcclCalls.COMM_INIT_RANK);
            byte[] id = new byte[128];
            for (int i = 0; i < id.length; i++) id[i] = (byte) (i * 37 + 11);
            MemorySegment idSegment = arena.allocate(NcclCalls.UNIQUE_ID).copyFrom(MemorySegment.ofArray(id));
            MemorySegment comm = arena.allocate(ADDRESS);
            int result = (int) call.invokeExact(comm, 4, idSegment, 3);
            assertEquals(0, result);
            assertArrayEquals(id, receivedId, "the 128 bytes, by value");
            assertEquals(4, receivedRanks);
            assertEquals(3, receivedRank, "the int after the struct");
            assertEquals(0xC0FFEE, comm.get(ADDRESS, 0).address(), "the communicator written through the pointer");
        }
    }
}
