package dev.symbiont.cuda.nccl;

import dev.symbiont.core.DType;
import dev.symbiont.core.distributed.Reduction;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Symbiont's dtypes and reductions onto nccl.h's enum values, and NCCL's result names and version codes. */
class NcclTypesTest {
    @Test
    void dtypesMapOntoNcclDataTypes() {
        assertEquals(7, NcclTypes.dataType("allReduce", DType.FLOAT32));
        assertEquals(2, NcclTypes.dataType("allReduce", DType.INT32));
        assertEquals(4, NcclTypes.dataType("allReduce", DType.INT64));
        assertEquals(4, NcclTypes.elementBytes(NcclTypes.FLOAT32));
        assertEquals(8, NcclTypes.elementBytes(NcclTypes.INT64));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NcclTypes.dataType("broadcast", DType.BFLOAT16));
        assertTrue(e.getMessage().startsWith("broadcast: ") && e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("bfloat16"), e.getMessage());
    }

    @Test
    void reductionsMapOntoNcclRedOps() {
        Map<Reduction, Integer> expected = Map.of(Reduction.SUM, 0, Reduction.MAX, 2, Reduction.MIN, 3, Reduction.AVG, 4);
        for (Reduction r : Reduction.values()) assertEquals(expected.get(r), NcclTypes.redOp(r), r.name());
    }

    @Test
    void resultsAreNamedAsNcclHNamesThem() {
        assertEquals("ncclInvalidArgument", NcclTypes.resultName(4));
        assertEquals("ncclUnhandledCudaError", NcclTypes.resultName(1));
        assertEquals("ncclRemoteError", NcclTypes.resultName(6));
        assertEquals("ncclResult_t 42", NcclTypes.resultName(42));
        assertTrue(new NcclException("ncclCommInitRank", 2, "unhandled system error").getMessage()
                .contains("ncclCommInitRank failed: unhandled system error (ncclSystemError)"));
    }

    @Test
    void versionCodesReadInBothOfNcclsEncodings() {
        assertEquals("2.27.3", NcclTypes.versionString(22703));
        assertEquals("2.10.3", NcclTypes.versionString(21003));
        assertEquals("2.8.4", NcclTypes.versionString(2804));
        assertTrue(21003 >= NcclTypes.FIRST_WITH_AVG && 20907 < NcclTypes.FIRST_WITH_AVG && 2804 < NcclTypes.FIRST_WITH_AVG);
    }
}
