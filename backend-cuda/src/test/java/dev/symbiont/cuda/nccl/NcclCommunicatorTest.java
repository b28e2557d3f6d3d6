package dev.symbiont.cuda.nccl;

import dev.symbiont.core.DType;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.distributed.CollectiveException;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.LocalCommunicator;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.core.distributed.Work;
import dev.symbiont.core.offheap.OffHeapBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link NcclCommunicator}'s own behaviour over a {@link FakeNccl}: the unique id every rank joins
 * with, the order of the streams, NCCL's errors in the messages, the asynchronous error and the
 * timeout, tensors of another device refused.
 */
class NcclCommunicatorTest {
    private final List<Object> journal = Collections.synchronizedList(new ArrayList<>());
    private RecordingDriver recording;
    private CudaBackend device;
    private FakeNccl fake;
    private Communicator bootstrap;
    private NcclCommunicator nccl;
    private Scope onDevice;

    /** One rank over a recording interpreted device. */
    @BeforeEach
    void oneRank() {
        recording = new RecordingDriver(journal);
        device = new CudaBackend(recording.driver(), 0);
        fake = new FakeNccl(new FakeNcclCliques(Duration.ofSeconds(30)), device.driver(), 22703, journal);
        bootstrap = LocalCommunicator.group(1).getFirst();
        nccl = NcclCommunicator.create(bootstrap, device, fake, Duration.ofMillis(200));
        onDevice = Backends.use(device);
    }

    @AfterEach
    void close() {
        onDevice.close();
        nccl.close();
    }

    @Test
    void everyRankJoinsWithTheUniqueIdOfRank0() throws Exception {
        FakeNcclCliques cliques = new FakeNcclCliques(Duration.ofSeconds(30));
        List<Communicator> group = LocalCommunicator.group(3);
        List<FakeNccl> fakes = new ArrayList<>();
        List<CudaBackend> devices = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            devices.add(new CudaBackend(new InterpretedDriver(), 0));
            fakes.add(new FakeNccl(cliques, devices.get(r).driver(), 22703));
        }
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            List<Future<NcclCommunicator>> made = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                int rank = r;
                made.add(threads.submit(() -> NcclCommunicator.create(group.get(rank), devices.get(rank), fakes.get(rank), Duration.ofSeconds(30))));
            }
            for (Future<NcclCommunicator> f : made) f.get().close();
        } finally {
            threads.shutdownNow();
        }
        assertEquals(List.of("ncclGetUniqueId", "ncclCommInitRank", "ncclCommDestroy"), functions(fakes.get(0)));
        byte[] id = initId(fakes.get(0));
        assertEquals(Nccl.UNIQUE_ID_BYTES, id.length);
        for (int r = 1; r < 3; r++) {
            assertEquals(List.of("ncclCommInitRank", "ncclCommDestroy"), functions(fakes.get(r)), "rank " + r + " makes no id of its own");
            assertArrayEquals(id, initId(fakes.get(r)), "rank " + r + " joined with rank 0's 128 bytes");
        }
    }

    @Test
    void aCollectiveQueuesOnItsOwnStreamAfterTheComputeStreamsEvent() {
        Tensor t = Tensor.fromArray(new float[] {1, 2, 3});
        journal.clear();
        Work w = nccl.allReduce(t, Reduction.SUM);
        w.await();
        List<Object> seen = List.copyOf(journal);
        RecordingDriver.Entry ready = entry(seen, 0, "record");
        assertSame(device.stream(), ready.stream(), "the first event is recorded on the backend's compute stream");
        RecordingDriver.Entry wait = entry(seen, 1, "waitEvent");
        assertSame(ready.event(), wait.event(), "the NCCL stream waits for that event");
        assertNotSame(device.stream(), wait.stream(), "NCCL runs on a stream of its own");
        FakeNccl.Call call = (FakeNccl.Call) seen.get(2);
        assertEquals("ncclAllReduce", call.function());
        assertSame(wait.stream(), call.stream(), "the all-reduce is queued on the stream that waited");
        RecordingDriver.Entry done = entry(seen, 3, "record");
        assertSame(wait.stream(), done.stream(), "the work's event follows the all-reduce on the NCCL stream");
        assertTrue(seen.stream().anyMatch(e -> e instanceof RecordingDriver.Entry x && x.call().equals("isComplete") && x.event() == done.event()),
                "await waits for the work's event");
        assertArrayEquals(new float[] {1, 2, 3}, t.toFloatArray());
    }

    @Test
    void anInvalidArgumentNamesTheCollectiveTheRankTheShapeAndNcclsText() {
        fake.failNext("ncclAllReduce", NcclTypes.INVALID_ARGUMENT);
        CollectiveException e = assertThrows(CollectiveException.class, () -> nccl.allReduce(Tensor.zeros(10, 100), Reduction.MAX));
        assertMentions(e, "allReduce of 1000 float32", "MAX", "[10, 100]", "rank 0 of 1", "cuda:0",
                "invalid argument (run with NCCL_DEBUG=WARN for details)", "ncclInvalidArgument");
        CollectiveException later = assertThrows(CollectiveException.class, () -> nccl.broadcast(Tensor.zeros(3), 0));
        assertMentions(later, "broadcast", "can no longer be used", "ncclInvalidArgument");
    }

    @Test
    void anUnhandledCudaErrorIsReportedWithNcclsText() {
        fake.failNext("ncclReduceScatter", NcclTypes.UNHANDLED_CUDA_ERROR);
        Tensor in = Tensor.full(1, DType.INT64, 6);
        Tensor out = Tensor.full(0, DType.INT64, 6);
        CollectiveException e = assertThrows(CollectiveException.class, () -> nccl.reduceScatter(in, out, Reduction.SUM));
        assertMentions(e, "reduceScatter of 6 int64", "[6] into [6]", "unhandled cuda error", "ncclUnhandledCudaError");
    }

    @Test
    void anAsynchronousErrorAbortsNcclAndFailsTheWork() {
        recording.eventsComplete(false);
        Work w = nccl.allGather(Tensor.zeros(4), Tensor.zeros(4));
        fake.asyncError(NcclTypes.REMOTE_ERROR);
        CollectiveException e = assertThrows(CollectiveException.class, w::await);
        assertMentions(e, "allGather of 4 float32", "remote process exited or there was a network error", "ncclRemoteError");
        assertTrue(functions(fake).contains("ncclCommAbort"), "NCCL's communicator is aborted: " + functions(fake));
        assertSame(e, assertThrows(CollectiveException.class, w::await), "a second await rethrows the same failure");
        assertMentions(assertThrows(CollectiveException.class, () -> nccl.allReduce(Tensor.zeros(2), Reduction.SUM)), "can no longer be used");
    }

    @Test
    void aCollectiveThatDoesNotCompleteInTimeAbortsNcclAndTheJob() {
        recording.eventsComplete(false);
        Work w = nccl.broadcast(Tensor.zeros(5), 0);
        assertFalse(w.isCompleted());
        CollectiveException e = assertThrows(CollectiveException.class, w::await);
        assertMentions(e, "broadcast of 5 float32 from root 0", "did not complete within PT0.2S", "symbiont.distributed.timeout", "rank 0");
        assertTrue(functions(fake).contains("ncclCommAbort"), "NCCL's communicator is aborted: " + functions(fake));
        assertThrows(CollectiveException.class, bootstrap::barrier, "the bootstrap's group was aborted too");
    }

    @Test
    void withoutNcclAvgAnAverageIsQueuedAsASum() throws Exception {
        FakeNccl old = new FakeNccl(new FakeNcclCliques(Duration.ofSeconds(30)), device.driver(), 20907);
        try (NcclCommunicator before210 = NcclCommunicator.create(LocalCommunicator.group(1).getFirst(), device, old, Duration.ofSeconds(30))) {
            Tensor t = Tensor.fromArray(new float[] {3, 5});
            before210.allReduce(t, Reduction.AVG).await();
            assertArrayEquals(new float[] {3, 5}, t.toFloatArray(), "the mean over one rank");
        }
        nccl.allReduce(Tensor.fromArray(new float[] {3, 5}), Reduction.AVG).await();
        assertEquals(NcclTypes.SUM, lastCollective(old).opOrRoot(), "NCCL 2.9 is asked for ncclSum");
        assertEquals(NcclTypes.AVG, lastCollective(fake).opOrRoot(), "NCCL 2.27 is asked for ncclAvg");
    }

    @Test
    void tensorsOfAnotherDeviceAreRefusedNamingTheDevices() {
        Tensor host = Tensor.zeros(4).to(new OffHeapBackend());
        assertMentions(assertThrows(IllegalArgumentException.class, () -> nccl.allReduce(host, Reduction.SUM)),
                "allReduce", "buffer", "offheap", "cuda:0", "[4]");
        assertMentions(assertThrows(IllegalArgumentException.class, () -> nccl.allGather(Tensor.zeros(4), host)),
                "allGather", "output", "offheap");
        assertTrue(functions(fake).stream().noneMatch(f -> f.equals("ncclAllReduce") || f.equals("ncclAllGather")), "nothing reached NCCL");
    }

    @Test
    void hostCollectivesAndTheBarrierGoThroughTheBootstrap() {
        double[] values = {1.5, -2};
        nccl.allReduce(values, Reduction.MAX);
        nccl.barrier();
        assertArrayEquals(new double[] {1.5, -2}, values);
        assertEquals("nccl", nccl.name());
        assertTrue(functions(fake).stream().noneMatch(f -> f.startsWith("ncclAll")), "no NCCL call for host values: " + functions(fake));
    }

    @Test
    void theLocalRankComesFromTheLaunchersVariable() {
        assertEquals(3, NcclCommunicator.localRank(Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "3", "LOCAL_RANK", "1")));
        assertEquals(1, NcclCommunicator.localRank(Map.of("SLURM_LOCALID", "1")));
        assertEquals(0, NcclCommunicator.localRank(Map.of()));
        assertMentions(assertThrows(IllegalArgumentException.class, () -> NcclCommunicator.localRank(Map.of("LOCAL_RANK", "x"))), "LOCAL_RANK=x");
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static List<String> functions(FakeNccl f) { return f.calls().stream().map(FakeNccl.Call::function).toList(); }

    private static byte[] initId(FakeNccl f) {
        return f.calls().stream().filter(c -> c.function().equals("ncclCommInitRank")).findFirst().orElseThrow().uniqueId();
    }

    private static FakeNccl.Call lastCollective(FakeNccl f) {
        List<FakeNccl.Call> calls = f.calls().stream().filter(c -> c.stream() != null).toList();
        return calls.getLast();
    }

    private static RecordingDriver.Entry entry(List<Object> seen, int index, String call) {
        Object e = seen.get(index);
        assertTrue(e instanceof RecordingDriver.Entry x && x.call().equals(call), "call " + index + " should be " + call + ": " + seen);
        return (RecordingDriver.Entry) e;
    }

    private static void assertMentions(Throwable e, String... fragments) {
        for (String f : fragments) assertTrue(String.valueOf(e.getMessage()).contains(f), "'" + e.getMessage() + "' does not mention '" + f + "'");
    }
}
