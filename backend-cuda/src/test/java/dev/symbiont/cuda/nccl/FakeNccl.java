package dev.symbiont.cuda.nccl;

import dev.symbiont.cuda.driver.Driver;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * One rank's NCCL, faked over its backend's {@link Driver}: each collective copies this rank's
 * device buffer to the host through the driver (the PTX interpreter's emulated memory in tests),
 * meets the other ranks of its clique ({@link FakeNcclCliques}), combines their contributions in
 * rank order and copies the result back. Calls are recorded (function and stream) for the tests
 * of ordering; a failure can be injected for the next call of a function, or as the
 * communicator's asynchronous error.
 */
final class FakeNccl implements Nccl {
    /**
     * One recorded call: the function, the stream it was queued on (null for none), its
     * {@code ncclRedOp_t} or root (-1 for none), and the unique id of an init (else null).
     */
    record Call(String function, Driver.Stream stream, int opOrRoot, byte[] uniqueId) {}

    private final FakeNcclCliques cliques;
    private final Driver driver;
    private final int version;
    private final List<Object> journal;
    private FakeNcclCliques.Clique clique;
    private int rank;
    private String failingFunction;
    private int failingResult;
    private volatile int asyncError = NcclTypes.SUCCESS;

    FakeNccl(FakeNcclCliques cliques, Driver driver, int version) {
        this(cliques, driver, version, Collections.synchronizedList(new ArrayList<>()));
    }

    /** A fake that records its {@link Call}s into {@code journal}, which a test may share with a driver that records too. */
    FakeNccl(FakeNcclCliques cliques, Driver driver, int version, List<Object> journal) {
        this.cliques = cliques;
        this.driver = driver;
        this.version = version;
        this.journal = journal;
    }

    /** The calls so far, in order. */
    List<Call> calls() {
        synchronized (journal) {
            return journal.stream().filter(Call.class::isInstance).map(Call.class::cast).toList();
        }
    }

    /** The next call of {@code function} ({@code "ncclAllReduce"}) returns {@code result} without communicating. */
    void failNext(String function, int result) {
        failingFunction = function;
        failingResult = result;
    }

    /** What {@code ncclCommGetAsyncError} reports from now on. */
    void asyncError(int result) { asyncError = result; }

    @Override public String describe() { return "fake NCCL " + NcclTypes.versionString(version); }

    @Override public int version() { return version; }

    @Override
    public byte[] uniqueId() {
        journal.add(new Call("ncclGetUniqueId", null, -1, null));
        byte[] id = new byte[UNIQUE_ID_BYTES];
        new Random().nextBytes(id);
        return id;
    }

    @Override
    public long commInitRank(int nranks, byte[] uniqueId, int rank) {
        journal.add(new Call("ncclCommInitRank", null, -1, uniqueId.clone()));
        this.clique = cliques.join(uniqueId, nranks);
        this.rank = rank;
        clique.exchange(rank, new FakeNcclCliques.Contribution("ncclCommInitRank", 0, 0, 0, new byte[0]));
        return 0x1000 + rank;
    }

    @Override public int commDestroy(long comm) { return record("ncclCommDestroy", null, -1); }

    @Override public int commAbort(long comm) { return record("ncclCommAbort", null, -1); }

    @Override public int commGetAsyncError(long comm) { return asyncError; }

    @Override
    public int allReduce(long send, long recv, long count, int dataType, int op, long comm, Driver.Stream stream) {
        return collective("ncclAllReduce", stream, send, count, dataType, op, recv, all -> reduce(all, 0, count, dataType, op));
    }

    @Override
    public int broadcast(long send, long recv, long count, int dataType, int root, long comm, Driver.Stream stream) {
        return collective("ncclBroadcast", stream, send, count, dataType, root, recv, all -> all[root].data());
    }

    @Override
    public int allGather(long send, long recv, long sendCount, int dataType, long comm, Driver.Stream stream) {
        return collective("ncclAllGather", stream, send, sendCount, dataType, -1, recv, all -> {
            int part = all[0].data().length;
            byte[] out = new byte[part * all.length];
            for (int r = 0; r < all.length; r++) System.arraycopy(all[r].data(), 0, out, r * part, part);
            return out;
        });
    }

    @Override
    public int reduceScatter(long send, long recv, long recvCount, int dataType, int op, long comm, Driver.Stream stream) {
        return collective("ncclReduceScatter", stream, send, recvCount * clique.size(), dataType, op, recv,
                all -> reduce(all, rank * recvCount, recvCount, dataType, op));
    }

    /** The texts of NCCL's {@code ncclGetErrorString}. */
    @Override
    public String errorString(int result) {
        return switch (result) {
            case NcclTypes.SUCCESS -> "no error";
            case NcclTypes.UNHANDLED_CUDA_ERROR -> "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
            case NcclTypes.SYSTEM_ERROR -> "unhandled system error (run with NCCL_DEBUG=INFO for details)";
            case NcclTypes.INVALID_ARGUMENT -> "invalid argument (run with NCCL_DEBUG=WARN for details)";
            case NcclTypes.REMOTE_ERROR -> "remote process exited or there was a network error";
            default -> "unknown result code";
        };
    }

    @Override public String lastError(long comm) { return ""; }

    // ---- the fake collectives ------------------------------------------------------------------

    /** The result a rank writes, from every rank's contribution. */
    @FunctionalInterface
    private interface Combine {
        byte[] of(FakeNcclCliques.Contribution[] all);
    }

    private int collective(String function, Driver.Stream stream, long send, long count, int dataType, int opOrRoot, long recv, Combine combine) {
        int failed = record(function, stream, opOrRoot);
        if (failed != NcclTypes.SUCCESS) return failed;
        byte[] mine = new byte[Math.toIntExact(count * NcclTypes.elementBytes(dataType))];
        driver.copyToHost(MemorySegment.ofArray(mine), send, stream);
        FakeNcclCliques.Contribution[] all = clique.exchange(rank, new FakeNcclCliques.Contribution(function, dataType, count, opOrRoot, mine));
        for (FakeNcclCliques.Contribution c : all) {
            if (!c.function().equals(function) || c.dataType() != dataType || c.count() != count || c.opOrRoot() != opOrRoot) {
                return NcclTypes.INVALID_USAGE; // the ranks disagree on the collective
            }
        }
        driver.copyToDevice(recv, MemorySegment.ofArray(combine.of(all)), stream);
        return NcclTypes.SUCCESS;
    }

    private synchronized int record(String function, Driver.Stream stream, int opOrRoot) {
        journal.add(new Call(function, stream, opOrRoot, null));
        if (function.equals(failingFunction)) {
            failingFunction = null;
            return failingResult;
        }
        return NcclTypes.SUCCESS;
    }

    /** Elements [from, from + count) of the contributions reduced in rank order, in the element type's own arithmetic. */
    private static byte[] reduce(FakeNcclCliques.Contribution[] all, long from, long count, int dataType, int op) {
        int bytes = NcclTypes.elementBytes(dataType);
        MemorySegment out = MemorySegment.ofArray(new byte[Math.toIntExact(count * bytes)]);
        for (long i = 0; i < count; i++) {
            long at = (from + i) * bytes;
            switch (dataType) {
                case NcclTypes.FLOAT32 -> {
                    float acc = get(all[0], ValueLayout.JAVA_FLOAT_UNALIGNED, at);
                    for (int r = 1; r < all.length; r++) acc = (float) combine(op, acc, get(all[r], ValueLayout.JAVA_FLOAT_UNALIGNED, at));
                    out.set(ValueLayout.JAVA_FLOAT_UNALIGNED, i * bytes, op == NcclTypes.AVG ? acc / all.length : acc);
                }
                case NcclTypes.INT32 -> {
                    long acc = get(all[0], ValueLayout.JAVA_INT_UNALIGNED, at);
                    for (int r = 1; r < all.length; r++) acc = (int) combine(op, acc, (long) get(all[r], ValueLayout.JAVA_INT_UNALIGNED, at));
                    out.set(ValueLayout.JAVA_INT_UNALIGNED, i * bytes, (int) acc);
                }
                case NcclTypes.INT64 -> {
                    long acc = get(all[0], ValueLayout.JAVA_LONG_UNALIGNED, at);
                    for (int r = 1; r < all.length; r++) acc = combine(op, acc, get(all[r], ValueLayout.JAVA_LONG_UNALIGNED, at));
                    out.set(ValueLayout.JAVA_LONG_UNALIGNED, i * bytes, acc);
                }
                default -> throw new IllegalArgumentException("fake NCCL: ncclDataType_t " + dataType);
            }
        }
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    private static float get(FakeNcclCliques.Contribution c, ValueLayout.OfFloat layout, long at) { return MemorySegment.ofArray(c.data()).get(layout, at); }

    private static int get(FakeNcclCliques.Contribution c, ValueLayout.OfInt layout, long at) { return MemorySegment.ofArray(c.data()).get(layout, at); }

    private static long get(FakeNcclCliques.Contribution c, ValueLayout.OfLong layout, long at) { return MemorySegment.ofArray(c.data()).get(layout, at); }

    private static double combine(int op, double a, double b) {
        return switch (op) {
            case NcclTypes.SUM, NcclTypes.AVG -> a + b;
            case NcclTypes.PROD -> a * b;
            case NcclTypes.MAX -> Math.max(a, b);
            case NcclTypes.MIN -> Math.min(a, b);
            default -> throw new IllegalArgumentException("fake NCCL: ncclRedOp_t " + op);
        };
    }

    private static long combine(int op, long a, long b) {
        return switch (op) {
            case NcclTypes.SUM -> a + b;
            case NcclTypes.PROD -> a * b;
            case NcclTypes.MAX -> Math.max(a, b);
            case NcclTypes.MIN -> Math.min(a, b);
            default -> throw new IllegalArgumentException("fake NCCL: ncclRedOp_t " + op + " on integers");
        };
    }
}
