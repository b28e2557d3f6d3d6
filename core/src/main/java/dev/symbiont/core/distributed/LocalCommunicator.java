package dev.symbiont.core.distributed;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostSegments;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Ranks as threads of one JVM: the reference twin of every communicator. Each collective copies
 * the ranks' tensors to the host, meets the other ranks, combines their contributions in rank
 * order and writes the result back; collectives complete before they return, so every
 * {@link Work} is already done. A rank that does not arrive within the timeout, ranks that
 * disagree on the collective, its dtype or its size, and {@link #abort} all end in a
 * {@link CollectiveException} on every rank, naming the collective and the ranks.
 *
 * <pre>{@code
 * List<Communicator> ranks = LocalCommunicator.group(3);
 * // thread r: ranks.get(r).allReduce(t, Reduction.SUM).await();
 * }</pre>
 */
public final class LocalCommunicator implements Communicator {
    /** How long a rank waits for the others at a collective before the group is declared broken. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

    private final LocalGroup group;
    private final int rank;
    private boolean closed;

    private LocalCommunicator(LocalGroup group, int rank) {
        this.group = group;
        this.rank = rank;
    }

    /** {@code size} communicators of one group, element r being rank r; each is used by one thread. */
    public static List<Communicator> group(int size) { return group(size, DEFAULT_TIMEOUT); }

    /** {@link #group(int)} with a timeout for every collective. */
    public static List<Communicator> group(int size, Duration timeout) {
        if (size < 1) throw new IllegalArgumentException("LocalCommunicator.group: size must be at least 1, got " + size);
        LocalGroup g = new LocalGroup(size, timeout);
        List<Communicator> ranks = new ArrayList<>(size);
        for (int r = 0; r < size; r++) ranks.add(new LocalCommunicator(g, r));
        return List.copyOf(ranks);
    }

    @Override public int rank() { return rank; }
    @Override public int size() { return group.size(); }
    @Override public String name() { return "local"; }

    @Override
    public Work allReduce(Tensor buffer, Reduction op) {
        String name = "allReduce";
        HostBuffers.checkAllReduce(buffer, op);
        LocalGroup.Contribution[] all = exchange(name, buffer, op, -1);
        MemorySegment out = hostCopy(buffer);
        combine(all, 0, buffer.numel(), buffer.dtype(), op, out, 0);
        HostBuffers.upload(out, buffer);
        return Work.DONE;
    }

    @Override
    public Work broadcast(Tensor buffer, int root) {
        String name = "broadcast";
        HostBuffers.checkBroadcast(buffer, root, size());
        LocalGroup.Contribution[] all = exchange(name, buffer, null, root);
        if (rank != root) HostBuffers.upload(all[root].data(), buffer);
        return Work.DONE;
    }

    @Override
    public Work allGather(Tensor input, Tensor output) {
        String name = "allGather";
        HostBuffers.checkAllGather(input, output, size());
        LocalGroup.Contribution[] all = exchange(name, input, null, -1);
        long bytes = (long) input.numel() * input.dtype().byteSize();
        MemorySegment out = MemorySegment.ofArray(new byte[Math.toIntExact(bytes * size())]);
        for (int r = 0; r < size(); r++) out.asSlice(r * bytes, bytes).copyFrom(all[r].data());
        HostBuffers.upload(out, output);
        return Work.DONE;
    }

    @Override
    public Work reduceScatter(Tensor input, Tensor output, Reduction op) {
        String name = "reduceScatter";
        HostBuffers.checkReduceScatter(input, output, op, size());
        LocalGroup.Contribution[] all = exchange(name, input, op, -1);
        MemorySegment out = hostCopy(output);
        combine(all, (long) rank * output.numel(), output.numel(), input.dtype(), op, out, 0);
        HostBuffers.upload(out, output);
        return Work.DONE;
    }

    @Override
    public void barrier() {
        ensureOpen("barrier");
        group.exchange(rank, new LocalGroup.Contribution("barrier", null, 0, null, -1, null));
    }

    @Override
    public void allReduce(double[] values, Reduction op) {
        String name = "allReduce(host)";
        ensureOpen(name);
        if (values == null || op == null) throw new IllegalArgumentException(name + ": values and reduction must not be null");
        MemorySegment mine = MemorySegment.ofArray(values.clone());
        LocalGroup.Contribution[] all = group.exchange(rank, new LocalGroup.Contribution(name, null, values.length, op, -1, mine));
        for (int i = 0; i < values.length; i++) {
            double acc = all[0].data().getAtIndex(ValueLayout.JAVA_DOUBLE, i);
            for (int r = 1; r < all.length; r++) acc = combine(op, acc, all[r].data().getAtIndex(ValueLayout.JAVA_DOUBLE, i));
            values[i] = op == Reduction.AVG ? acc / all.length : acc;
        }
    }

    @Override
    public void abort(String message, int exitCode) {
        String why = "rank " + rank + " aborted the job (exit code " + exitCode + "): " + message;
        System.err.println(why);
        group.abort(why);
        throw new CollectiveException(why);
    }

    @Override
    public void close() { closed = true; }

    private LocalGroup.Contribution[] exchange(String name, Tensor t, Reduction op, int root) {
        ensureOpen(name);
        MemorySegment data = hostCopy(t);
        HostBuffers.download(t, data);
        return group.exchange(rank, new LocalGroup.Contribution(name, t.dtype(), t.numel(), op, root, data));
    }

    private void ensureOpen(String name) {
        if (closed) throw new IllegalStateException(name + ": rank " + rank + "'s communicator is closed");
    }

    private static MemorySegment hostCopy(Tensor t) {
        return MemorySegment.ofArray(new byte[Math.toIntExact((long) t.numel() * t.dtype().byteSize())]);
    }

    /** Elements [from, from + count) of the contributions, combined in rank order, into {@code out} at {@code at}. */
    private static void combine(LocalGroup.Contribution[] all, long from, long count, DType dtype, Reduction op, MemorySegment out, long at) {
        ValueLayout layout = HostSegments.elementLayout(dtype);
        long size = dtype.byteSize();
        for (long i = 0; i < count; i++) {
            long src = (from + i) * size, dst = (at + i) * size;
            switch (dtype) {
                case FLOAT32 -> {
                    var f = (ValueLayout.OfFloat) layout;
                    float acc = all[0].data().get(f, src);
                    for (int r = 1; r < all.length; r++) acc = (float) combine(op, acc, all[r].data().get(f, src));
                    out.set(f, dst, op == Reduction.AVG ? acc / all.length : acc);
                }
                case INT32 -> {
                    var f = (ValueLayout.OfInt) layout;
                    int acc = all[0].data().get(f, src);
                    for (int r = 1; r < all.length; r++) acc = (int) combineExact(op, acc, all[r].data().get(f, src));
                    out.set(f, dst, acc);
                }
                case INT64 -> {
                    var f = (ValueLayout.OfLong) layout;
                    long acc = all[0].data().get(f, src);
                    for (int r = 1; r < all.length; r++) acc = combineExact(op, acc, all[r].data().get(f, src));
                    out.set(f, dst, acc);
                }
                default -> throw new IllegalStateException("unreachable: " + dtype);
            }
        }
    }

    private static double combine(Reduction op, double a, double b) {
        return switch (op) {
            case SUM, AVG -> a + b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
        };
    }

    private static long combineExact(Reduction op, long a, long b) {
        return switch (op) {
            case SUM, AVG -> a + b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
        };
    }
}
