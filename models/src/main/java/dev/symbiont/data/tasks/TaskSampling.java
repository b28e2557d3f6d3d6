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
        int[] p = new int[n];
        for (int i = 0; i < n; i++) p[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i]; p[i] = p[j]; p[j] = t;
        }
        return p;
    }
}
