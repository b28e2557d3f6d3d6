package dev.symbiont.bench;

/**
 * The textbook cost of a ring all-reduce (Patarasuk and Yuan 2009; Horovod's and NCCL's ring) on
 * p ranks of n bytes: a reduce-scatter and an all-gather of p − 1 steps each, every step sending
 * n/p bytes to the next rank,
 * <pre>
 *   t(p, n) = 2(p − 1)·α + 2(p − 1)/p · n·β
 * </pre>
 * with α the latency of one step and β the time per byte on the link. Two ranks measured as
 * t = a + b·n ({@link AlphaBetaFit}) give α = a / 2 and β = b. A model, not a measurement: it
 * ignores contention, topology, the reduction's arithmetic and the implementation's choice of
 * another algorithm at some sizes.
 *
 * @param alpha seconds per ring step
 * @param beta  seconds per byte on the link
 */
record RingAllReduceModel(double alpha, double beta) {
    RingAllReduceModel {
        if (!(alpha >= 0) || !(beta >= 0)) {
            throw new IllegalArgumentException("RingAllReduceModel: alpha and beta must be ≥ 0, got " + alpha + " s and " + beta + " s/B");
        }
    }

    /** The ring whose two-rank time is {@code twoRanks}: α = a / 2, β = b. */
    static RingAllReduceModel fromTwoRanks(AlphaBetaFit twoRanks) {
        return new RingAllReduceModel(Math.max(0, twoRanks.alpha()) / 2, twoRanks.beta());
    }

    /** This ring's latency on a link of {@code gbitPerSecond} (β = 8 / rate seconds per byte). */
    RingAllReduceModel onLink(double gbitPerSecond) {
        if (!(gbitPerSecond > 0)) throw new IllegalArgumentException("RingAllReduceModel: link rate must be positive, got " + gbitPerSecond + " Gb/s");
        return new RingAllReduceModel(alpha, 8 / (gbitPerSecond * 1e9));
    }

    /** t(p, n) in seconds; p ≥ 1 (one rank exchanges nothing). */
    double seconds(int ranks, double bytes) {
        if (ranks < 1) throw new IllegalArgumentException("RingAllReduceModel: ranks must be ≥ 1, got " + ranks);
        return 2.0 * (ranks - 1) * alpha + 2.0 * (ranks - 1) / ranks * bytes * beta;
    }

    /**
     * Weak-scaling efficiency t(1) / t(p) of a data-parallel step that computes for
     * {@code computeSeconds} per rank (p-independent: the per-rank batch is fixed) and then
     * all-reduces {@code communicationSeconds} of gradients. Without overlap the two add; with
     * overlap the all-reduce runs behind the backward pass ({@code backwardSeconds} of the
     * compute) and only what exceeds it is exposed, an upper bound (buckets cannot start before
     * their gradients exist).
     */
    static double efficiency(double computeSeconds, double backwardSeconds, double communicationSeconds, boolean overlap) {
        if (!(computeSeconds > 0) || !(backwardSeconds >= 0) || backwardSeconds > computeSeconds || !(communicationSeconds >= 0)) {
            throw new IllegalArgumentException("RingAllReduceModel.efficiency: needs compute > 0, 0 ≤ backward ≤ compute and communication ≥ 0, got "
                    + computeSeconds + ", " + backwardSeconds + ", " + communicationSeconds + " s");
        }
        double exposed = overlap ? Math.max(0, communicationSeconds - backwardSeconds) : communicationSeconds;
        return computeSeconds / (computeSeconds + exposed);
    }
}
