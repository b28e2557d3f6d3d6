package dev.symbiont.cpu.gemm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The portable EJML path against the reference. */
class EjmlGemmTest extends GemmParityTest {

    private static final Gemm GEMM = Gemm.of(GemmPath.EJML);

    @Override
    Gemm gemm() {
        return GEMM;
    }

    @Test
    void should_report_the_ejml_path() {
        assertEquals(GemmPath.EJML, GEMM.path());
    }
}
