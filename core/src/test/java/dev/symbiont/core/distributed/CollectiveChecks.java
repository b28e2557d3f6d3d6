package dev.symbiont.core.distributed;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.symbiont.core.distributed.RankValues.COUNTS;
import static dev.symbiont.core.distributed.RankValues.assertElements;
import static dev.symbiont.core.distributed.RankValues.ofRank;
import static dev.symbiont.core.distributed.RankValues.reduced;
import static dev.symbiont.core.distributed.RankValues.shapeOf;
import static dev.symbiont.core.distributed.RankValues.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every communicator must do, written once as {@link CollectiveCheck}s that each rank runs
 * with its own communicator: each collective on every dtype, reduction and root, over the
 * awkward sizes of {@link RankValues#COUNTS}, with exact expected results; collectives started
 * together and awaited in order and in reverse; the host allReduce ordered among tensor
 * collectives; the barrier; and the bad inputs every rank rejects before communicating
 * ({@link BadCollectiveInputs}). Run by {@link CommunicatorConformance} on threads and by the
 * MPI test's main in each process.
 */
public final class CollectiveChecks {
    private CollectiveChecks() {}

    static final List<DType> DTYPES = List.of(DType.FLOAT32, DType.INT32, DType.INT64);

    /** Every check, in the order every rank runs them. */
    public static List<CollectiveCheck> all() {
        List<CollectiveCheck> checks = new ArrayList<>();
        for (DType dtype : DTYPES) {
            for (Reduction op : reductionsOf(dtype)) {
                checks.add(new CollectiveCheck("allReduce " + op + " " + dtype, (c, shared) -> allReduce(c, dtype, op)));
            }
        }
        for (DType dtype : DTYPES) checks.add(new CollectiveCheck("broadcast from every root " + dtype, (c, shared) -> broadcast(c, dtype)));
        for (DType dtype : DTYPES) checks.add(new CollectiveCheck("allGather " + dtype, (c, shared) -> allGather(c, dtype)));
        for (DType dtype : DTYPES) {
            for (Reduction op : reductionsOf(dtype)) {
                checks.add(new CollectiveCheck("reduceScatter " + op + " " + dtype, (c, shared) -> reduceScatter(c, dtype, op)));
            }
        }
        for (Reduction op : Reduction.values()) checks.add(new CollectiveCheck("host allReduce " + op, (c, shared) -> hostAllReduce(c, op)));
        checks.add(new CollectiveCheck("barrier waits for every rank", CollectiveChecks::barrier));
        checks.add(new CollectiveCheck("collectives started together, awaited in order", (c, shared) -> startedTogether(c, false)));
        checks.add(new CollectiveCheck("collectives started together, awaited in reverse", (c, shared) -> startedTogether(c, true)));
        checks.addAll(BadCollectiveInputs.all());
        return List.copyOf(checks);
    }

    /** AVG applies to float32 only. */
    static List<Reduction> reductionsOf(DType dtype) {
        return dtype == DType.FLOAT32 ? List.of(Reduction.values()) : List.of(Reduction.SUM, Reduction.MAX, Reduction.MIN);
    }

    private static void allReduce(Communicator c, DType dtype, Reduction op) {
        for (int n : COUNTS) {
            Tensor t = ofRank(dtype, c.rank(), shapeOf(n));
            c.allReduce(t, op).await();
            assertElements(where(c, "allReduce " + op + " of " + n + " " + dtype), t, i -> reduced(dtype, op, c.size(), i));
        }
    }

    private static void broadcast(Communicator c, DType dtype) {
        for (int n : COUNTS) {
            for (int root = 0; root < c.size(); root++) {
                Tensor t = ofRank(dtype, c.rank(), shapeOf(n));
                c.broadcast(t, root).await();
                int from = root;
                assertElements(where(c, "broadcast of " + n + " " + dtype + " from root " + root), t, i -> value(dtype, from, i));
            }
        }
    }

    private static void allGather(Communicator c, DType dtype) {
        for (int n : COUNTS) {
            Tensor in = ofRank(dtype, c.rank(), shapeOf(n));
            Tensor out = Tensor.full(-1, dtype, c.size(), n);
            c.allGather(in, out).await();
            assertElements(where(c, "allGather of " + n + " " + dtype), out, j -> value(dtype, j / n, j % n));
            assertElements(where(c, "allGather's input of " + n + " " + dtype), in, i -> value(dtype, c.rank(), i));
        }
    }

    private static void reduceScatter(Communicator c, DType dtype, Reduction op) {
        for (int n : COUNTS) {
            Tensor in = ofRank(dtype, c.rank(), new int[] {c.size(), n});
            Tensor out = Tensor.full(-1, dtype, shapeOf(n));
            c.reduceScatter(in, out, op).await();
            long first = (long) c.rank() * n;
            assertElements(where(c, "reduceScatter " + op + " of " + n + " " + dtype), out, i -> reduced(dtype, op, c.size(), first + i));
        }
    }

    private static void hostAllReduce(Communicator c, Reduction op) {
        for (int n : COUNTS) {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) v[i] = RankValues.hostValue(c.rank(), i);
            c.allReduce(v, op);
            for (int i = 0; i < n; i++) {
                assertEquals(RankValues.hostReduced(op, c.size(), i), v[i], 0, where(c, "host allReduce " + op + " of " + n + ": element " + i));
            }
        }
    }

    /** Each rank leaves a mark before the barrier; after it, every rank sees every mark. A collective either side stays matched. */
    private static void barrier(Communicator c, Path shared) throws Exception {
        Tensor before = ofRank(DType.FLOAT32, c.rank(), shapeOf(7));
        c.allReduce(before, Reduction.SUM).await();
        Files.createDirectories(shared);
        Files.writeString(shared.resolve("rank-" + c.rank()), "arrived");
        c.barrier();
        for (int r = 0; r < c.size(); r++) assertTrue(Files.exists(shared.resolve("rank-" + r)), where(c, "after the barrier, rank " + r + " has not arrived"));
        Tensor after = ofRank(DType.INT64, c.rank(), shapeOf(7));
        c.allReduce(after, Reduction.MAX).await();
        assertElements(where(c, "allReduce before the barrier"), before, i -> reduced(DType.FLOAT32, Reduction.SUM, c.size(), i));
        assertElements(where(c, "allReduce after the barrier"), after, i -> reduced(DType.INT64, Reduction.MAX, c.size(), i));
    }

    /**
     * Four tensor collectives started back to back, a blocking host allReduce queued behind them,
     * then the works awaited in order (or in reverse): every result right, every work complete,
     * a second await a no-op.
     */
    private static void startedTogether(Communicator c, boolean reverse) {
        int size = c.size(), rank = c.rank(), last = size - 1;
        Tensor reducedIn = ofRank(DType.FLOAT32, rank, shapeOf(1000));
        Tensor broadcastIn = ofRank(DType.INT64, rank, shapeOf(7));
        Tensor gatherIn = ofRank(DType.INT32, rank, shapeOf(65537));
        Tensor gatherOut = Tensor.full(-1, DType.INT32, size * 65537);
        Tensor scatterIn = ofRank(DType.FLOAT32, rank, new int[] {size, 7});
        Tensor scatterOut = Tensor.full(-1, DType.FLOAT32, 7);
        List<Work> works = new ArrayList<>(List.of(
                c.allReduce(reducedIn, Reduction.AVG),
                c.broadcast(broadcastIn, last),
                c.allGather(gatherIn, gatherOut),
                c.reduceScatter(scatterIn, scatterOut, Reduction.MAX)));
        double[] ranks = {rank};
        c.allReduce(ranks, Reduction.SUM);
        assertEquals(size * (size - 1) / 2.0, ranks[0], where(c, "host allReduce queued behind four tensor collectives"));
        if (reverse) works = works.reversed();
        for (Work w : works) w.await();
        for (Work w : works) assertTrue(w.isCompleted(), where(c, "an awaited work reports itself incomplete"));
        for (Work w : works) w.await();
        assertElements(where(c, "allReduce AVG started first"), reducedIn, i -> reduced(DType.FLOAT32, Reduction.AVG, size, i));
        assertElements(where(c, "broadcast started second"), broadcastIn, i -> value(DType.INT64, last, i));
        assertElements(where(c, "allGather started third"), gatherOut, j -> value(DType.INT32, j / 65537, j % 65537));
        long first = (long) rank * 7;
        assertElements(where(c, "reduceScatter started fourth"), scatterOut, i -> reduced(DType.FLOAT32, Reduction.MAX, size, first + i));
    }

    /** A message prefix naming the rank and group size. */
    static String where(Communicator c, String what) { return what + " on rank " + c.rank() + " of " + c.size() + " (" + c.name() + ")"; }
}
