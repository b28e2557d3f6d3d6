package dev.symbiont.data.tasks;

import dev.symbiont.core.Generator;

/** Sampling helpers shared by the tasks. */
final class TaskSampling {
    private TaskSampling() {}

    /** Marks {@code k} distinct positions of [0, n), uniformly (Floyd's algorithm: k draws, no retries). */
    static boolean[] choose(Generator random, int n, int k) {
        boolean[] chosen = new boolean[n];
        for (int j = n - k; j < n; j++) {
            int t = random.nextInt(j + 1);
            chosen[chosen[t] ? j : t] = true;
        }
        return chosen;
    }

    /** A uniformly random permutation of [0, n) (Fisher–Yates). */
    static int[] permutation(Generator random, int n) {
        return dev.symbiont.data.Seeds.randperm(n, random);
    }
}
