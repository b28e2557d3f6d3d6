package dev.symbiont.nn.parallel;

import dev.symbiont.core.DType;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.nn.Parameter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The gradient side of {@link DistributedDataParallel}, as PyTorch's {@code Reducer}: a
 * post-accumulate-grad hook on every trainable parameter copies its gradient into its bucket as
 * soon as backward has finished it, and the moment a bucket is complete its all-reduce (AVG) is
 * started, while backward goes on with earlier layers. Buckets start strictly in index order,
 * because collectives are matched by order across ranks: a complete bucket waits for the ones
 * before it. {@link #finish} starts whatever is left (a parameter that got no gradient counts as
 * zero, so every rank starts every bucket and none is left waiting), awaits them all, agrees with
 * the other ranks on which parameters got gradients, and makes the averages the parameters'
 * gradients.
 *
 * <p>After the first synchronised step the buckets are rebuilt in the order rank 0's gradients
 * actually became ready (not with {@code findUnusedParameters}, as in PyTorch), so each bucket
 * fills as early as backward allows. One thread per rank: hooks run on the thread that calls
 * backward, which must be the one calling {@link #finish}.
 */
final class Reducer {
    private final Communicator comm;
    private final List<String> names;
    private final List<Parameter> parameters;
    private final int[][] shapes;
    private final long[] bytes;
    private final long firstBucketBytes, bucketBytes;
    private final boolean findUnused;
    private final Backend backend;
    private final Tensor[] hooked;
    private final Scope[] hooks;

    private List<Bucket> buckets;
    private int[] bucketOf, slotOf;
    private boolean rebuilt;

    private boolean stepActive;
    private final boolean[] ready;
    /** Got a gradient inside noSync() since the last synchronised step: its grad() holds a local sum to reduce. */
    private final boolean[] accumulatedUnsynced;
    private final List<Integer> readyOrder = new ArrayList<>();
    private int nextToStart;
    private int noSyncDepth;

    /** {@code names} and {@code parameters}: the trainable float32 parameters on {@code backend}, in registration order. */
    Reducer(Communicator comm, List<String> names, List<Parameter> parameters, Backend backend,
            long firstBucketBytes, long bucketBytes, boolean findUnused) {
        this.comm = comm;
        this.names = List.copyOf(names);
        this.parameters = List.copyOf(parameters);
        this.backend = backend;
        this.firstBucketBytes = firstBucketBytes;
        this.bucketBytes = bucketBytes;
        this.findUnused = findUnused;
        int n = parameters.size();
        this.shapes = new int[n][];
        this.bytes = new long[n];
        for (int i = 0; i < n; i++) {
            shapes[i] = parameters.get(i).shape();
            bytes[i] = (long) parameters.get(i).numel() * DType.FLOAT32.byteSize();
        }
        this.ready = new boolean[n];
        this.accumulatedUnsynced = new boolean[n];
        this.hooked = new Tensor[n];
        this.hooks = new Scope[n];
        for (int i = 0; i < n; i++) hook(i);
        assign(BucketAssignment.initial(n, bytes, firstBucketBytes, bucketBytes));
    }

    /** Parameter names per bucket, in bucket-index order (the order their all-reduces start). */
    List<List<String>> assignment() {
        return buckets.stream().map(b -> Arrays.stream(b.parameters).mapToObj(names::get).toList()).toList();
    }

    /** Gradients accumulate locally until the scope closes; scopes nest. */
    Scope noSync() {
        noSyncDepth++;
        boolean[] closed = {false};
        return () -> {
            if (!closed[0]) {
                closed[0] = true;
                noSyncDepth--;
            }
        };
    }

    /** Removes the hooks. */
    void close() {
        for (Scope h : hooks) if (h != null) h.close();
    }

    private void hook(int id) {
        Tensor value = parameters.get(id).value();
        hooked[id] = value;
        hooks[id] = value.registerPostAccumulateGradHook(leaf -> onGradientReady(id, leaf));
    }

    private void assign(List<int[]> assignment) {
        List<Bucket> made = new ArrayList<>(assignment.size());
        bucketOf = new int[parameters.size()];
        slotOf = new int[parameters.size()];
        for (int b = 0; b < assignment.size(); b++) {
            int[] ids = assignment.get(b);
            made.add(new Bucket(b, ids, shapes));
            for (int k = 0; k < ids.length; k++) {
                bucketOf[ids[k]] = b;
                slotOf[ids[k]] = k;
            }
        }
        buckets = List.copyOf(made);
    }

    // ---- during backward ------------------------------------------------------------------------

    private void onGradientReady(int id, Tensor leaf) {
        if (noSyncDepth > 0) {
            accumulatedUnsynced[id] = true;
            return;
        }
        if (!stepActive) beginStep();
        Bucket bucket = buckets.get(bucketOf[id]);
        if (bucket.started()) {
            throw new IllegalStateException("DistributedDataParallel: parameter '" + names.get(id) + "' got a second gradient after bucket "
                    + bucket.index + " holding it was already being reduced; run every micro-batch but the last inside noSync(), "
                    + "and call finishGradientSync() before the next synchronised backward");
        }
        copyIn(id, leaf.grad());
        startCompleteBuckets();
    }

    private void beginStep() {
        for (Bucket b : buckets) b.begin(backend);
        Arrays.fill(ready, false);
        readyOrder.clear();
        nextToStart = 0;
        stepActive = true;
    }

    /** Copies parameter {@code id}'s gradient into its slice (again, if backward reached it twice) and counts it ready. */
    private void copyIn(int id, Tensor grad) {
        if (grad == null) return;
        Tensor g = grad.dtype() == DType.FLOAT32 ? grad : grad.to(DType.FLOAT32);
        if (g.backend() != backend) g = g.to(backend);
        Bucket bucket = buckets.get(bucketOf[id]);
        bucket.copyIn(slotOf[id], g);
        if (ready[id]) return;
        ready[id] = true;
        readyOrder.add(id);
        bucket.markCopied();
    }

    private void startCompleteBuckets() {
        while (nextToStart < buckets.size() && buckets.get(nextToStart).complete()) start(buckets.get(nextToStart++));
    }

    private void start(Bucket b) { b.started(comm.allReduce(b.flat(), Reduction.AVG)); }

    // ---- after backward -------------------------------------------------------------------------

    /** See {@link DistributedDataParallel#finishGradientSync()}. */
    void finish() {
        if (noSyncDepth > 0) {
            throw new IllegalStateException("DistributedDataParallel.finishGradientSync: called inside noSync(); "
                    + "close the scope first (the last micro-batch's backward runs outside it)");
        }
        try (var noGrad = GradMode.disabled()) {
            boolean[] replaced = rehook();
            if (!stepActive) beginStep();
            // Gradients backward did not hand over this pass: accumulated under noSync() only, or on a replaced tensor.
            for (int id = 0; id < parameters.size(); id++) {
                if (!ready[id] && (accumulatedUnsynced[id] || replaced[id])) copyIn(id, parameters.get(id).grad());
            }
            while (nextToStart < buckets.size()) start(buckets.get(nextToStart++));
            for (Bucket b : buckets) b.await();
            double[] used = new double[parameters.size()];
            for (int id = 0; id < used.length; id++) used[id] = ready[id] ? 1 : 0;
            comm.allReduce(used, Reduction.SUM);
            List<Integer> missing = new ArrayList<>();
            for (int id = 0; id < used.length; id++) if (used[id] < comm.size()) missing.add(id);
            if (!missing.isEmpty() && !findUnused) throw UnusedParameters.error(comm, missing, ready, names, bucketOf);
            for (int id = 0; id < used.length; id++) {
                // A parameter no rank produced a gradient for keeps its grad() untouched, as in PyTorch.
                if (used[id] > 0) parameters.get(id).setGrad(buckets.get(bucketOf[id]).slice(slotOf[id]));
            }
            if (!rebuilt && !findUnused) rebuild();
        } finally {
            endStep();
        }
    }

    /**
     * Moves the hook of every parameter whose value was replaced since it was hooked (a checkpoint
     * load, a move to another backend) onto the new value; returns which were.
     */
    private boolean[] rehook() {
        boolean[] replaced = new boolean[parameters.size()];
        for (int id = 0; id < replaced.length; id++) {
            if (parameters.get(id).value() == hooked[id]) continue;
            hooks[id].close();
            hook(id);
            replaced[id] = true;
        }
        return replaced;
    }

    /** Buckets in the order this step's gradients became ready on rank 0, which every rank adopts. */
    private void rebuild() {
        double[] order = new double[parameters.size()];
        boolean[] placed = new boolean[order.length];
        int k = 0;
        for (int id : readyOrder) {
            order[k++] = id;
            placed[id] = true;
        }
        for (int id = order.length - 1; id >= 0; id--) if (!placed[id]) order[k++] = id;
        double[] agreed = HostGather.broadcast(comm, order, 0);
        int[] ids = new int[agreed.length];
        for (int i = 0; i < ids.length; i++) ids[i] = (int) agreed[i];
        assign(BucketAssignment.bySize(ids, bytes, firstBucketBytes, bucketBytes));
        rebuilt = true;
    }

    private void endStep() {
        stepActive = false;
        for (Bucket b : buckets) b.end();
        Arrays.fill(accumulatedUnsynced, false);
    }
}
