package dev.symbiont.bench.compare;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScalingFitTest {
    private static final double[] XS = {256, 512, 1024, 2048, 4096, 8192};

    @Test
    void should_recover_the_exponent_and_factor_of_an_exact_power_law() {
        for (double k : new double[] {0, 0.5, 1, 1.7, 2}) {
            double[] ys = new double[XS.length];
            for (int i = 0; i < XS.length; i++) ys[i] = 3 * Math.pow(XS[i], k);
            ScalingFit fit = ScalingFit.of(XS, ys);
            assertEquals(k, fit.exponent(), 1e-9, "exponent");
            assertEquals(3, fit.factor(), 1e-6, "factor");
            assertEquals(1, fit.r2(), 1e-9, "R²");
            assertEquals(3 * Math.pow(100, k), fit.at(100), 1e-6 * Math.pow(100, k));
        }
    }

    @Test
    void should_recover_the_exponent_within_noise_of_five_percent() {
        SplittableRandom r = new SplittableRandom(11);
        double[] ys = new double[XS.length];
        for (int i = 0; i < XS.length; i++) ys[i] = 0.02 * Math.pow(XS[i], 1.3) * (1 + r.nextDouble(-0.05, 0.05));
        ScalingFit fit = ScalingFit.of(XS, ys);
        assertEquals(1.3, fit.exponent(), 0.03);
        assertTrue(fit.r2() > 0.99 && fit.r2() < 1, "R² " + fit.r2());
        assertEquals(6, fit.points());
    }

    @Test
    void should_see_the_quadratic_term_take_over_in_the_upper_half() {
        List<Point> pts = new ArrayList<>();
        for (double x : XS) pts.add(Point.of("cpu", "train.seq", "gpt", x, Map.of("ms", x + x * x / 1024)));  // linear below 1024, quadratic above
        double all = ScalingFit.of(pts, "ms").exponent(), upper = ScalingFit.ofUpperHalf(pts, "ms").exponent();
        assertTrue(all > 1.2 && all < upper, "over all sizes " + all + ", upper half " + upper);
        assertTrue(upper > 1.7 && upper < 2, "upper half " + upper);
    }

    @Test
    void should_leave_out_points_without_a_logarithm() {
        ScalingFit fit = ScalingFit.of(new double[] {0, 2, 4, 8}, new double[] {5, 4, 16, 64});
        assertEquals(2, fit.exponent(), 1e-9);
        assertEquals(3, fit.points());
    }

    @Test
    void should_refuse_fewer_than_two_usable_points_naming_the_count() {
        var e = assertThrows(IllegalArgumentException.class, () -> ScalingFit.of(new double[] {4, 4, -1}, new double[] {1, 2, 3}));
        assertTrue(e.getMessage().contains("ScalingFit") && e.getMessage().contains("2 usable of 3"), e.getMessage());
        var lengths = assertThrows(IllegalArgumentException.class, () -> ScalingFit.of(new double[] {1, 2}, new double[] {1}));
        assertTrue(lengths.getMessage().contains("2 x values but 1 y values"), lengths.getMessage());
    }
}
