package dev.symbiont.nn.parallel;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** PyTorch's bucket assignment by size: a small first bucket, buckets closed once they reach their cap. */
class BucketAssignmentTest {
    private static List<List<Integer>> asLists(List<int[]> buckets) {
        return buckets.stream().map(b -> java.util.Arrays.stream(b).boxed().toList()).toList();
    }

    @Test
    void buckets_close_once_they_reach_their_cap_and_only_the_first_has_the_small_one() {
        long[] bytes = {4, 4, 4, 4, 4, 10, 4};
        // first cap 6: [0, 1] (8 ≥ 6); cap 12: [2, 3, 4] (12 ≥ 12), [5, 6] (14: a parameter is never split)
        assertEquals(List.of(List.of(0, 1), List.of(2, 3, 4), List.of(5, 6)), asLists(BucketAssignment.bySize(new int[] {0, 1, 2, 3, 4, 5, 6}, bytes, 6, 12)));
        // in another order the caps follow the order, not the ids
        assertEquals(List.of(List.of(6, 5), List.of(4, 3, 2), List.of(1, 0)), asLists(BucketAssignment.bySize(new int[] {6, 5, 4, 3, 2, 1, 0}, bytes, 6, 12)));
    }

    @Test
    void before_the_first_step_buckets_are_filled_in_registration_order_and_reversed_so_the_small_one_is_reduced_last() {
        long[] bytes = {4, 4, 4, 4, 4, 10, 4};
        assertEquals(List.of(List.of(5, 6), List.of(2, 3, 4), List.of(0, 1)), asLists(BucketAssignment.initial(7, bytes, 6, 12)));
    }
}
