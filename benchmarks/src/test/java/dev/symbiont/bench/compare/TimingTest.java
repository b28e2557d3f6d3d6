package dev.symbiont.bench.compare;

import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TimingTest {
    @Test
    void should_run_the_warmups_and_at_least_the_reps() {
        int[] calls = new int[1];
        double s = Timing.medianSeconds(new ReferenceBackend(), 2, 5, 0, () -> calls[0]++);
        assertEquals(7, calls[0]);
        assertTrue(s >= 0 && s < 1, "median " + s);
    }

    @Test
    void should_time_fast_work_over_more_calls_up_to_the_cap() {
        int[] calls = new int[1];
        Timing.medianSeconds(new ReferenceBackend(), 0, 3, 3600, () -> calls[0]++);
        assertEquals(Timing.MAX_CALLS, calls[0], "an hour of timing asked for a no-op: the cap ends it");
    }

    @Test
    void should_take_the_median_of_odd_and_even_counts() {
        assertEquals(3, Timing.median(new double[] {9, 1, 3}));
        assertEquals(2.5, Timing.median(new double[] {4, 1, 2, 3}));
        assertThrows(IllegalArgumentException.class, () -> Timing.median(new double[0]));
        var e = assertThrows(IllegalArgumentException.class, () -> Timing.medianSeconds(new ReferenceBackend(), 0, 0, () -> { }));
        assertTrue(e.getMessage().contains("reps must be ≥ 1, got 0"), e.getMessage());
    }
}
