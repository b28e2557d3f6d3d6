package dev.symbiont.cpu.gemm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The Vector API path against the reference (surefire runs with --add-modules jdk.incubator.vector). */
class VectorGemmTest extends GemmParityTest {

    private static final Gemm GEMM = Gemm.of(GemmPath.VECTOR);

    @Override
    Gemm gemm() {
        return GEMM;
    }

    @Test
    void should_report_the_vector_path() {
        assertEquals(GemmPath.VECTOR, GEMM.path());
    }
}
