package dev.symbiont.core.distributed.mpi;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MpiWaitTest {
    @Test
    void pollIsTheDefaultAndBothPoliciesAreNamedCaseInsensitively() {
        assertEquals(MpiWait.POLL, MpiWait.parse(null));
        assertEquals(MpiWait.POLL, MpiWait.parse(" "));
        assertEquals(MpiWait.POLL, MpiWait.parse("Poll"));
        assertEquals(MpiWait.BLOCK, MpiWait.parse(" block "));
    }

    @Test
    void anUnknownPolicyIsRefusedNamingThePropertyAndTheChoices() {
        String message = assertThrows(IllegalArgumentException.class, () -> MpiWait.parse("spin")).getMessage();
        assertTrue(message.contains("symbiont.mpi.wait=spin") && message.contains("poll or block"), message);
    }

    @Test
    void pollingTestsUntilDoneAndThenStops() {
        AtomicInteger calls = new AtomicInteger();
        long made = MpiWait.pollUntil(() -> calls.incrementAndGet() == 7);
        assertEquals(7, made);
        assertEquals(7, calls.get());
    }

    @Test
    void pastTheSpinPhaseEveryTestIsFollowedByASleep() {
        List<Long> calls = new ArrayList<>();
        AtomicInteger pastSpin = new AtomicInteger();
        // Done at the fourth test past the spin phase, however long a sleep overshoots on a busy machine.
        MpiWait.pollUntil(() -> {
            long now = System.nanoTime();
            calls.add(now);
            return now - calls.get(0) > MpiWait.SPIN_NANOS && pastSpin.incrementAndGet() == 4;
        });
        // A test made later than SPIN_NANOS after the first one is past the spin phase: the next waits at least the shortest sleep.
        int slept = 0;
        for (int k = 0; k + 1 < calls.size(); k++) {
            if (calls.get(k) - calls.get(0) <= MpiWait.SPIN_NANOS) continue;
            slept++;
            long gap = calls.get(k + 1) - calls.get(k);
            assertTrue(gap >= MpiWait.FIRST_SLEEP_NANOS, "test " + k + " was followed by the next after " + gap + " ns, without a sleep");
        }
        assertTrue(slept >= 3, "three tests past the spin phase before the last: " + slept + " of " + calls.size() + " tests");
    }
}
