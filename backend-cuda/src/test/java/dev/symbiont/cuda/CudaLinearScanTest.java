package dev.symbiont.cuda;

import dev.symbiont.cuda.CudaLinearScan.Variant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the linear scan picks its variant: the documented shape rule under auto, a forced variant
 * under {@code -Dsymbiont.cuda.linearScan}, and a clear error for a value it does not know. The
 * variants' results are compared in {@link dev.symbiont.cuda.fused.CudaScanKernelsTest}.
 */
class CudaLinearScanTest {
    @AfterEach
    void unset() { System.clearProperty(CudaLinearScan.PROPERTY); }

    @Test
    void autoTakesTheGridWideVariantOnlyForFewLongSequences() {
        assertEquals(Variant.GRID, CudaLinearScan.choose(Variant.AUTO, 4, 65_536));
        assertEquals(Variant.GRID, CudaLinearScan.choose(Variant.AUTO, CudaLinearScan.GRID_MAX_SEQUENCES, CudaLinearScan.GRID_MIN_LENGTH));
        assertEquals(Variant.BLOCK, CudaLinearScan.choose(Variant.AUTO, CudaLinearScan.GRID_MAX_SEQUENCES + 1, 65_536));
        assertEquals(Variant.BLOCK, CudaLinearScan.choose(Variant.AUTO, 4, CudaLinearScan.GRID_MIN_LENGTH - 1));
    }

    @Test
    void aForcedVariantHoldsWhateverTheShape() {
        assertEquals(Variant.GRID, CudaLinearScan.choose(Variant.GRID, 4096, 3));
        assertEquals(Variant.BLOCK, CudaLinearScan.choose(Variant.BLOCK, 1, 1 << 20));
        // a grid of more blocks than one grid dimension holds falls back to a block per sequence
        assertEquals(Variant.BLOCK, CudaLinearScan.choose(Variant.GRID, 1L << 24, 1 << 20));
    }

    @Test
    void thePropertyNamesTheVariant() {
        assertEquals(Variant.AUTO, CudaLinearScan.configured());
        System.setProperty(CudaLinearScan.PROPERTY, " Grid ");
        assertEquals(Variant.GRID, CudaLinearScan.configured());
        System.setProperty(CudaLinearScan.PROPERTY, "fastest");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, CudaLinearScan::configured);
        assertTrue(e.getMessage().contains(CudaLinearScan.PROPERTY) && e.getMessage().contains("fastest"), e.getMessage());
    }
}
