package dev.symbiont.bench;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The α/β fit and the ring all-reduce's cost and efficiency model, on synthetic data with known α and β. */
class RingAllReduceModelTest {
    private static final double ALPHA = 40e-6, BETA = 1.25e-9; // 40 µs, 0.8 GB/s

    /** The benchmark's sizes: 8 B … 64 MiB, doubling. */
    private static double[] sizes() {
        double[] n = new double[24];
        for (int i = 0; i < n.length; i++) n[i] = 8L << i;
        return n;
    }

    @Test
    void fitRecoversAlphaAndBetaOfExactPoints() {
        double[] n = sizes(), t = new double[n.length];
        for (int i = 0; i < n.length; i++) t[i] = ALPHA + BETA * n[i];
        AlphaBetaFit fit = AlphaBetaFit.fit(n, t);
        assertEquals(ALPHA, fit.alpha(), ALPHA * 1e-9);
        assertEquals(BETA, fit.beta(), BETA * 1e-9);
        assertEquals(0, fit.rmsRelativeResidual(), 1e-12);
    }

    @Test
    void fitWeighsSmallMessagesSoNoiseOnLargeOnesLeavesAlphaClose() {
        // ±5% on every point, alternating: an unweighted fit's intercept would swing by 5% of the 64 MiB time (~4 ms, 100× α).
        double[] n = sizes(), t = new double[n.length];
        for (int i = 0; i < n.length; i++) t[i] = (ALPHA + BETA * n[i]) * (i % 2 == 0 ? 1.05 : 0.95);
        AlphaBetaFit fit = AlphaBetaFit.fit(n, t);
        assertEquals(ALPHA, fit.alpha(), ALPHA * 0.06, "alpha " + fit.alpha());
        assertEquals(BETA, fit.beta(), BETA * 0.06, "beta " + fit.beta());
        assertEquals(0.05, fit.rmsRelativeResidual(), 0.01);
    }

    @Test
    void fitRefusesPointsThatCannotMakeALine() {
        var one = assertThrows(IllegalArgumentException.class, () -> AlphaBetaFit.fit(new double[] {8}, new double[] {1e-6}));
        assertTrue(one.getMessage().contains("at least two"), one.getMessage());
        var same = assertThrows(IllegalArgumentException.class, () -> AlphaBetaFit.fit(new double[] {8, 8}, new double[] {1e-6, 2e-6}));
        assertTrue(same.getMessage().contains("same size"), same.getMessage());
        var zero = assertThrows(IllegalArgumentException.class, () -> AlphaBetaFit.fit(new double[] {8, 16}, new double[] {1e-6, 0}));
        assertTrue(zero.getMessage().contains("point 1"), zero.getMessage());
    }

    @Test
    void theRingThroughTwoRanksIsTheFittedLineAndGrowsAsTwoPMinusOneSteps() {
        AlphaBetaFit twoRanks = new AlphaBetaFit(ALPHA, BETA, 0);
        RingAllReduceModel ring = RingAllReduceModel.fromTwoRanks(twoRanks);
        assertEquals(ALPHA / 2, ring.alpha(), 1e-18);
        assertEquals(BETA, ring.beta(), 1e-24);
        double n = 3.2e6;
        assertEquals(twoRanks.seconds(n), ring.seconds(2, n), 1e-15);
        assertEquals(14 * ALPHA / 2 + 1.75 * n * BETA, ring.seconds(8, n), 1e-15);   // 2·7 steps, 2·7/8 of the data
        assertEquals(0, ring.seconds(1, n));
        // Bandwidth term tends to 2·n·β however many ranks: the ring's point.
        assertTrue(ring.seconds(1024, n) - 2046 * ring.alpha() < 2 * n * BETA);
    }

    @Test
    void aLinkRateSetsBetaAndKeepsAlpha() {
        RingAllReduceModel ring = new RingAllReduceModel(20e-6, BETA).onLink(10);
        assertEquals(0.8e-9, ring.beta(), 1e-21);
        assertEquals(20e-6, ring.alpha());
        assertEquals(0.08e-9, new RingAllReduceModel(20e-6, BETA).onLink(100).beta(), 1e-22);
    }

    @Test
    void efficiencyAddsCommunicationWithoutOverlapAndHidesItBehindBackwardWithOverlap() {
        double step = 0.300, backward = 0.150;
        assertEquals(0.300 / 0.350, RingAllReduceModel.efficiency(step, backward, 0.050, false), 1e-12);
        assertEquals(1.0, RingAllReduceModel.efficiency(step, backward, 0.050, true), 1e-12);
        assertEquals(0.300 / 0.350, RingAllReduceModel.efficiency(step, backward, 0.200, true), 1e-12);  // 50 ms beyond backward
        var bad = assertThrows(IllegalArgumentException.class, () -> RingAllReduceModel.efficiency(0.1, 0.2, 0.01, true));
        assertTrue(bad.getMessage().contains("backward ≤ compute"), bad.getMessage());
    }

    @Test
    void reportRowsAreReadAsKeyValuePairs() {
        Map<String, String> row = ScalingModelReport.keyValues("allreduce impl=ffm ranks=2 bytes=4096 us=3.250 gbps=1.260");
        assertEquals(Map.of("impl", "ffm", "ranks", "2", "bytes", "4096", "us", "3.250", "gbps", "1.260"), row);
    }
}
