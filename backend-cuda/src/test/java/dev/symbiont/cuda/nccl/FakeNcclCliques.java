package dev.symbiont.cuda.nccl;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The "network" of {@link FakeNccl}s: ranks whose {@code ncclCommInitRank} got the same unique id
 * form one clique, whose members meet at each collective (ranks as threads, as in
 * {@link dev.symbiont.core.distributed.LocalCommunicator}). A rank given another id would wait
 * alone in a clique of its own and time out, as NCCL would.
 */
final class FakeNcclCliques {
    /** One rank's part of a collective. */
    record Contribution(String function, int dataType, long count, int opOrRoot, byte[] data) {}

    /** The ranks of one communicator, meeting at each collective. */
    static final class Clique {
        private final int size;
        private final Duration timeout;
        private Contribution[] arriving;
        private Contribution[] met;
        private int arrived;
        private long generation;

        Clique(int size, Duration timeout) {
            this.size = size;
            this.timeout = timeout;
            this.arriving = new Contribution[size];
        }

        int size() { return size; }

        /** Waits until every rank has given its contribution to this collective; every rank's, in rank order. */
        synchronized Contribution[] exchange(int rank, Contribution mine) {
            long generationOfMine = generation;
            arriving[rank] = mine;
            if (++arrived == size) {
                met = arriving;
                arriving = new Contribution[size];
                arrived = 0;
                generation++;
                notifyAll();
                return met;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            while (generation == generationOfMine) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new IllegalStateException("fake NCCL: rank " + rank + " waited " + timeout + " at " + mine.function()
                        + " for the other ranks of a clique of " + size);
                try {
                    wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("fake NCCL: interrupted at " + mine.function(), e);
                }
            }
            return met;
        }
    }

    private final Map<String, Clique> byId = new ConcurrentHashMap<>();
    private final Duration timeout;

    FakeNcclCliques(Duration timeout) { this.timeout = timeout; }

    /** The clique of {@code uniqueId}, made by the first rank that joins it. */
    Clique join(byte[] uniqueId, int nranks) {
        Clique c = byId.computeIfAbsent(HexFormat.of().formatHex(uniqueId), id -> new Clique(nranks, timeout));
        if (c.size() != nranks) throw new IllegalStateException("fake NCCL: a clique of " + c.size() + " joined with nranks " + nranks);
        return c;
    }
}
