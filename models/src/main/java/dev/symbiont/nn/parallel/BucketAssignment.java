package dev.symbiont.nn.parallel;

import java.util.ArrayList;
import java.util.List;

/**
 * Which parameters share a gradient bucket, as PyTorch's {@code compute_bucket_assignment_by_size}:
 * parameters are taken in the given order and added to the current bucket until it holds at
 * least its limit, then the next bucket starts. The first bucket's limit is {@code firstLimit},
 * every later one's {@code limit}; a parameter is never split, so a bucket may pass its limit by
 * its last parameter.
 */
final class BucketAssignment {
    private BucketAssignment() {}

    /**
     * @param order parameter ids in the order they fill buckets
     * @param bytes each parameter's gradient size in bytes, by id
     * @return the buckets, each its parameter ids in {@code order}'s order
     */
    static List<int[]> bySize(int[] order, long[] bytes, long firstLimit, long limit) {
        List<int[]> buckets = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        long size = 0, cap = firstLimit;
        for (int id : order) {
            current.add(id);
            size += bytes[id];
            if (size >= cap) {
                buckets.add(current.stream().mapToInt(Integer::intValue).toArray());
                current.clear();
                size = 0;
                cap = limit;
            }
        }
        if (!current.isEmpty()) buckets.add(current.stream().mapToInt(Integer::intValue).toArray());
        return buckets;
    }

    /**
     * The assignment before any step has run, as PyTorch's DDP makes it: buckets filled in
     * registration order with the small first limit, then the list reversed, because the
     * parameters registered last are usually used last in forward and get their gradients first.
     * The small bucket thus holds the first-registered parameters and is reduced last, so little
     * communication is left once backward ends.
     */
    static List<int[]> initial(int parameters, long[] bytes, long firstLimit, long limit) {
        int[] registration = new int[parameters];
        for (int i = 0; i < parameters; i++) registration[i] = i;
        List<int[]> buckets = bySize(registration, bytes, firstLimit, limit);
        return buckets.reversed();
    }
}
