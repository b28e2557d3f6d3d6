package dev.symbiont.cpu;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The team runs every task of a job exactly once, on the caller and its helpers, however jobs arrive. */
class CpuTeamTest {
    private static final ForkJoinPool POOL = new ForkJoinPool(2);

    private static CpuTeam team(int threads) {
        return new CpuTeam(threads, TaskRunner.of(POOL));
    }

    private static void assertEachOnce(AtomicIntegerArray runs, String what) {
        for (int i = 0; i < runs.length(); i++) assertEquals(1, runs.get(i), what + ": task " + i);
    }

    @Test
    void should_run_every_task_exactly_once_over_many_jobs() {
        CpuTeam team = team(3);
        for (int tasks : new int[] {1, 2, 3, 7, 64, 1000}) {
            for (int job = 0; job < 50; job++) {
                AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
                team.run(tasks, runs::incrementAndGet);
                assertEachOnce(runs, tasks + " tasks, job " + job);
            }
        }
    }

    @Test
    void should_hand_tasks_to_a_helper_that_had_parked() throws InterruptedException {
        CpuTeam team = team(2);
        for (int round = 0; round < 3; round++) {
            Thread.sleep(20); // idle far past the spin and yield phases: the helper parks
            // task 0 waits until another thread has entered task 1; only the helper can take it
            CountDownLatch second = new CountDownLatch(1);
            Set<Thread> threads = ConcurrentHashMap.newKeySet();
            boolean[] met = new boolean[1];
            team.run(2, i -> {
                threads.add(Thread.currentThread());
                if (i == 1) {
                    second.countDown();
                } else {
                    try {
                        met[0] = second.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            assertTrue(met[0], "round " + round + ": no helper took the second task");
            assertEquals(2, threads.size(), "round " + round + ": the two tasks ran on two threads");
        }
    }

    @Test
    void should_run_a_job_started_inside_a_task_on_that_thread() {
        CpuTeam team = team(2);
        AtomicIntegerArray runs = new AtomicIntegerArray(4 * 5);
        team.run(4, outer -> {
            Thread me = Thread.currentThread();
            team.run(5, inner -> {
                assertSame(me, Thread.currentThread(), "a nested task left its thread");
                runs.incrementAndGet(outer * 5 + inner);
            });
        });
        assertEachOnce(runs, "nested");
    }

    @Test
    void should_rethrow_a_failing_task_after_the_others_have_run() {
        CpuTeam team = team(2);
        AtomicIntegerArray runs = new AtomicIntegerArray(16);
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> team.run(16, i -> {
            runs.incrementAndGet(i);
            if (i == 5) throw new IllegalArgumentException("task 5");
        }));
        assertEquals("task 5", thrown.getMessage());
        assertEachOnce(runs, "with a failure");
        AtomicIntegerArray after = new AtomicIntegerArray(8);
        team.run(8, after::incrementAndGet);
        assertEachOnce(after, "the job after the failure");
    }

    @Test
    void should_run_jobs_from_several_threads_at_once() throws InterruptedException {
        CpuTeam team = team(2);
        int callers = 4, jobs = 200, tasks = 9;
        AtomicIntegerArray runs = new AtomicIntegerArray(callers * jobs * tasks);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
            int caller = c;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int j = 0; j < jobs; j++) {
                    int base = (caller * jobs + j) * tasks;
                    team.run(tasks, i -> runs.incrementAndGet(base + i));
                }
            }));
        }
        for (Thread t : threads) t.join();
        assertEachOnce(runs, "concurrent callers");
    }

    @Test
    void should_refuse_a_team_of_no_threads() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> team(0));
        assertTrue(e.getMessage().contains("CpuTeam"), e.getMessage());
    }
}
