package dev.symbiont.core.reference;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpecialFunctionsTest {

    @Test
    void erf_matches_known_values() {
        assertEquals(0.5204998778130465, SpecialFunctions.erf(0.5), 1e-7);
        assertEquals(0.8427007929497149, SpecialFunctions.erf(1), 1e-7);
        assertEquals(-0.9953222650189527, SpecialFunctions.erf(-2), 1e-7);
        assertEquals(0.9999779095030014, SpecialFunctions.erf(3), 1e-7);
        assertEquals(0.0, SpecialFunctions.erf(0), 0.0);
    }

    @Test
    void erf_is_far_tighter_than_float_needs() {
        // Tabulated values (A&S table 7.1 / Wolfram), checked to 1e-14.
        assertEquals(0.1124629160182849, SpecialFunctions.erf(0.1), 1e-14);
        assertEquals(0.9661051464753108, SpecialFunctions.erf(1.5), 1e-14);
        assertEquals(0.9999999845827421, SpecialFunctions.erf(4), 1e-14);
    }

    @Test
    void erf_keeps_relative_precision_near_zero() {
        // erf(x) ~ 2x/sqrt(pi) for tiny x
        assertEquals(1.1283791670955126e-8, SpecialFunctions.erf(1e-8), 1e-22);
    }

    @Test
    void erf_handles_infinities_and_nan() {
        assertEquals(1.0, SpecialFunctions.erf(Double.POSITIVE_INFINITY));
        assertEquals(-1.0, SpecialFunctions.erf(Double.NEGATIVE_INFINITY));
        assertEquals(1.0, SpecialFunctions.erf(40));
        assertTrue(Double.isNaN(SpecialFunctions.erf(Double.NaN)));
    }

    @Test
    void erfc_is_accurate_in_the_tail() {
        assertEquals(1.5374597944280349e-12, SpecialFunctions.erfc(5), 1.5374597944280349e-12 * 1e-12);
        assertEquals(2.0 - 1.5374597944280349e-12, SpecialFunctions.erfc(-5), 1e-15);
        assertEquals(0.4795001221869535, SpecialFunctions.erfc(0.5), 1e-15);
        assertEquals(0.0, SpecialFunctions.erfc(30), 0.0);
    }
}
