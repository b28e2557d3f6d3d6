package dev.symbiont.nn.mamba;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A refused Mamba config names the sizes it was given (not the all-zero record a compact constructor would print). */
class MambaConfigMessageTest {
    @Test
    void refusedConfigsPrintTheGivenSizes() {
        assertEquals("MambaConfig: every size must be positive, got dModel=16, dInner=0, dState=4, dtRank=1, dConv=4",
                assertThrows(IllegalArgumentException.class, () -> new MambaConfig(16, 0, 4, 1, 4)).getMessage());
        assertEquals("Mamba2Config: nGroups 3 must divide heads 4, got dModel=16, heads=4, headDim=8, dState=4, nGroups=3, dConv=4, chunkSize=8",
                assertThrows(IllegalArgumentException.class, () -> new Mamba2Config(16, 4, 8, 4, 3, 4, 8)).getMessage());
    }
}
