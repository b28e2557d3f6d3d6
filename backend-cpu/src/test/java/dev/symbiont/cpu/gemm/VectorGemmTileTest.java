package dev.symbiont.cpu.gemm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The micro-tile choice. The surefire runs {@code gemm-tile-4} and {@code gemm-tile-8} set
 * {@code symbiont.cpu.gemm.mr} and run the parity suite ({@link VectorGemmTest}) with each tile;
 * this checks that the tile under test is the one asked for, so neither run passes vacuously.
 */
class VectorGemmTileTest {

    @Test
    void should_use_the_tile_the_property_asks_for_or_the_one_the_vector_width_fits() {
        Integer asked = Integer.getInteger("symbiont.cpu.gemm.mr");
        int expected = asked != null ? asked : VectorGemmKernels.L >= 16 ? 8 : 4;
        assertEquals(expected, VectorGemmKernels.MR);
        assertEquals(2 * VectorGemmKernels.L, VectorGemmKernels.NR);
    }

    @Test
    void should_cut_a_blocks_into_whole_micro_panels() {
        assertEquals(0, VectorGemm.MC % VectorGemm.MR);
    }

    @Test
    void should_reject_a_tile_without_a_kernel() {
        var e = assertThrows(IllegalArgumentException.class, () -> VectorGemmKernels.rows(6));
        assertTrue(e.getMessage().contains("symbiont.cpu.gemm.mr") && e.getMessage().contains("6"), e.getMessage());
    }
}
