package dev.symbiont.cuda.blas;

import dev.symbiont.cuda.driver.CudaException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@code java.lang.foreign} binding against a stand-in {@code libcublas.so.13} compiled from
 * {@code cublas_stub.c}, which records what it was passed: every argument must arrive in its slot
 * with its C type (an int where cuBLAS takes an int, a long long stride, alpha and beta as host floats).
 */
class CublasFfmTest {
    private static final long STREAM = 0x5eed_0000L;
    @TempDir static Path dir;
    private static Path library;
    private static MemorySegment record;

    @BeforeAll
    static void compileTheStub() throws IOException, InterruptedException {
        Path source = dir.resolve("cublas_stub.c");
        try (InputStream in = CublasFfmTest.class.getResourceAsStream("cublas_stub.c")) {
            Files.copy(in, source);
        }
        library = dir.resolve("libcublas.so.13");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O1", "-o", library.toString(), source.toString())
                    .redirectErrorStream(true).start();
        } catch (IOException noCompiler) {
            gcc = null;
        }
        assumeTrue(gcc != null && gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0, "gcc builds the stand-in library");
        record = SymbolLookup.libraryLookup(library, Arena.global()).find("stub_record").orElseThrow().reinterpret(40 * 8);
    }

    private static CublasFfm open() {
        return CublasFfm.open(CublasLibrarySearch.of(dir.toString(), null, List.of(), List.of()), STREAM);
    }

    private static long[] args(int count) {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) out[i] = record.getAtIndex(JAVA_LONG, 4 + i);
        return out;
    }

    @Test
    void opensTheLibraryOnTheBackendsStreamAndNamesItsVersion() {
        CublasFfm blas = open();
        assertEquals(STREAM, record.getAtIndex(JAVA_LONG, 0), "cublasSetStream_v2 got the raw CUstream");
        assertEquals("cuBLAS 13.0.2 via java.lang.foreign (" + library.toAbsolutePath() + ")", blas.describe());
        blas.close();
        assertEquals(1, record.getAtIndex(JAVA_LONG, 2), "cublasDestroy_v2 got the handle cublasCreate_v2 made");
    }

    @Test
    void aSingleProductGoesToGemmExWithEveryArgumentInItsSlot() {
        CublasFfm blas = open();
        blas.gemm(new GemmCall(true, false, 3, 5, 7, 0x1000, GemmCall.ElementType.BF16, 8, 0, 0x2000,
                GemmCall.ElementType.BF16, 9, 0, 0x3000, 10, 0, 1, GemmCall.MathMode.DEFAULT));
        assertEquals(1, record.getAtIndex(JAVA_LONG, 3));
        assertArrayEquals(new long[] {1, 1, 0, 3, 5, 7, 1000, 0x1000, 14, 8, 0x2000, 14, 9, 0, 0x3000, 0, 10, 68, -1}, args(19),
                "handle, opA=T, opB=N, m, n, k, alpha=1, A, CUDA_R_16BF, lda, B, CUDA_R_16BF, ldb, beta=0, C, CUDA_R_32F, ldc, COMPUTE_32F, GEMM_DEFAULT");
        assertEquals(0, record.getAtIndex(JAVA_LONG, 1), "default math mode");
        blas.close();
    }

    @Test
    void aBatchGoesToStridedBatchedExAndTf32SetsItsMathMode() {
        CublasFfm blas = open();
        blas.gemm(new GemmCall(false, true, 4, 6, 8, 0x1000, GemmCall.ElementType.F32, 4, 32, 0x2000,
                GemmCall.ElementType.F32, 6, 48, 0x3000, 4, 24, 3, GemmCall.MathMode.TF32));
        assertEquals(2, record.getAtIndex(JAVA_LONG, 3));
        assertArrayEquals(new long[] {1, 0, 1, 4, 6, 8, 1000, 0x1000, 0, 4, 32, 0x2000, 0, 6, 48, 0, 0x3000, 0, 4, 24, 3, 77, -1},
                args(23), "strides as long long, batchCount, COMPUTE_32F_FAST_TF32");
        assertEquals(3, record.getAtIndex(JAVA_LONG, 1), "CUBLAS_TF32_TENSOR_OP_MATH");
        blas.close();
    }

    @Test
    void independentProblemsGoToOneGroupedCallWithAGroupEach() {
        CublasFfm blas = open();
        assertTrue(blas.hasGroupedGemm());
        GemmCall first = new GemmCall(false, false, 3, 5, 7, 0x1000, GemmCall.ElementType.F32, 3, 0, 0x2000,
                GemmCall.ElementType.F32, 7, 0, 0x3000, 3, 0, 1, GemmCall.MathMode.DEFAULT);
        GemmCall second = new GemmCall(true, false, 11, 13, 17, 0x4000, GemmCall.ElementType.F32, 17, 0, 0x5000,
                GemmCall.ElementType.F32, 19, 0, 0x6000, 23, 0, 1, GemmCall.MathMode.DEFAULT);
        blas.groupedGemm(List.of(first, second), 0x9000);
        assertEquals(3, record.getAtIndex(JAVA_LONG, 3));
        assertArrayEquals(new long[] {1, 2, 68, 0x9000, 0x9010, 0x9020, 0, 0, 0, 1, 0, 11, 13, 17, 17, 19, 23, 1000, 0, 2, 3},
                args(21), "handle, 2 groups, COMPUTE_32F, the A, B and C pointer arrays 2 addresses apart, CUDA_R_32F x3, "
                        + "the second group's opA=T, opB=N, m, n, k, lda, ldb, ldc, alpha=1, beta=0; a problem per group; the first m");
        var half = assertThrows(IllegalArgumentException.class, () -> blas.groupedGemm(List.of(first, new GemmCall(false, false,
                2, 2, 2, 0x1000, GemmCall.ElementType.BF16, 2, 0, 0x2000, GemmCall.ElementType.BF16, 2, 0, 0x3000, 2, 0, 1,
                GemmCall.MathMode.DEFAULT)), 0x9000));
        assertTrue(half.getMessage().startsWith("CublasFfm.groupedGemm: problems must be float32"), half.getMessage());
        blas.close();
    }

    @Test
    void aFailedCallNamesTheStatusAndTheShape() {
        CublasFfm blas = open();
        var e = assertThrows(CudaException.class, () -> blas.gemm(new GemmCall(false, false, 12345, 2, 2, 0x1000,
                GemmCall.ElementType.F32, 12345, 0, 0x2000, GemmCall.ElementType.F32, 2, 0, 0x3000, 12345, 0, 1,
                GemmCall.MathMode.DEFAULT)));
        assertTrue(e.getMessage().startsWith("cublasGemmEx: CUBLAS_STATUS_INVALID_VALUE (m=12345 n=2 k=2"), e.getMessage());
        var mixed = assertThrows(IllegalArgumentException.class, () -> blas.gemm(new GemmCall(false, false, 2, 2, 2, 0x1000,
                GemmCall.ElementType.BF16, 2, 0, 0x2000, GemmCall.ElementType.F32, 2, 0, 0x3000, 2, 0, 1, GemmCall.MathMode.DEFAULT)));
        assertTrue(mixed.getMessage().contains("A BF16 and B F32"), mixed.getMessage());
        blas.close();
    }

    @Test
    void aLibraryWithoutTheEntryPointsIsSkippedWithItsReason() throws IOException {
        Path notCublas = dir.resolve("empty/libcublas.so.12");
        Files.createDirectories(notCublas.getParent());
        Files.writeString(notCublas, "not an ELF file");
        var e = assertThrows(IllegalStateException.class, () -> CublasFfm.open(
                new CublasLibrarySearch(List.of(notCublas.toString()), List.of("the test's folder")), STREAM));
        assertTrue(e.getMessage().startsWith("no cuBLAS opened (" + notCublas + ": "), e.getMessage());
        assertTrue(e.getMessage().endsWith("searched [the test's folder]"), e.getMessage());
    }
}
