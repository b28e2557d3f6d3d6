package dev.symbiont.cuda.blas;

import dev.symbiont.cuda.driver.CudaException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * cuBLAS through {@code java.lang.foreign}: the seven entry points the backend needs, bound against
 * {@code libcublas.so.13} or {@code .so.12} (their C ABI is the same), for machines where JCublas
 * cannot load because only CUDA 13's cuBLAS is installed; the grouped GEMM only where the library
 * has it (cuBLAS 12.5 and later). The handle is bound to the backend's
 * stream, so every GEMM is queued in order with the backend's kernels; alpha and beta are host
 * floats (the default pointer mode), allocated once.
 */
public final class CublasFfm implements Blas {
    static final FunctionDescriptor CREATE = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    static final FunctionDescriptor DESTROY = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    static final FunctionDescriptor SET_STREAM = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    static final FunctionDescriptor SET_MATH_MODE = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
    static final FunctionDescriptor GET_VERSION = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    /** handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo. */
    static final FunctionDescriptor GEMM_EX = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT);
    /** As {@link #GEMM_EX} with a {@code long long} stride after each leading dimension, and batchCount before computeType. */
    static final FunctionDescriptor GEMM_STRIDED_BATCHED_EX = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT,
            JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT);
    /**
     * handle, transa[], transb[], m[], n[], k[], alpha[], A[] (device), Atype, lda[], B[] (device), Btype, ldb[], beta[],
     * C[] (device), Ctype, ldc[], group_count, group_size[], computeType: every array but A, B and C on the host.
     */
    static final FunctionDescriptor GEMM_GROUPED_BATCHED_EX = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
            ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
            JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT);

    private final String library;
    private final Arena arena;
    private final MethodHandle destroy;
    private final MethodHandle setMathMode;
    private final MethodHandle gemmEx;
    private final MethodHandle gemmStridedBatchedEx;
    /** Null where the library has no grouped GEMM (before cuBLAS 12.5). */
    private final MethodHandle gemmGroupedBatchedEx;
    private final MemorySegment handle;
    private final MemorySegment alpha;
    private final MemorySegment beta;
    private final int version;
    private int mathMode = -1;
    private boolean closed;

    private CublasFfm(String library, long stream) {
        this.library = library;
        this.arena = Arena.ofShared();
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup lookup = library.startsWith("/") ? SymbolLookup.libraryLookup(java.nio.file.Path.of(library), arena)
                    : SymbolLookup.libraryLookup(library, arena);
            MethodHandle create = bind(linker, lookup, "cublasCreate_v2", CREATE);
            MethodHandle setStream = bind(linker, lookup, "cublasSetStream_v2", SET_STREAM);
            MethodHandle getVersion = bind(linker, lookup, "cublasGetVersion_v2", GET_VERSION);
            destroy = bind(linker, lookup, "cublasDestroy_v2", DESTROY);
            setMathMode = bind(linker, lookup, "cublasSetMathMode", SET_MATH_MODE);
            gemmEx = bind(linker, lookup, "cublasGemmEx", GEMM_EX);
            gemmStridedBatchedEx = bind(linker, lookup, "cublasGemmStridedBatchedEx", GEMM_STRIDED_BATCHED_EX);
            gemmGroupedBatchedEx = lookup.find("cublasGemmGroupedBatchedEx")
                    .map(symbol -> linker.downcallHandle(symbol, GEMM_GROUPED_BATCHED_EX)).orElse(null);

            MemorySegment out = arena.allocate(ADDRESS);
            check("cublasCreate_v2", (int) create.invokeExact(out), "");
            handle = out.get(ADDRESS, 0);
            check("cublasSetStream_v2", (int) setStream.invokeExact(handle, MemorySegment.ofAddress(stream)), "");
            MemorySegment v = arena.allocate(JAVA_INT);
            check("cublasGetVersion_v2", (int) getVersion.invokeExact(handle, v), "");
            version = v.get(JAVA_INT, 0);
            alpha = arena.allocate(JAVA_FLOAT);
            alpha.set(JAVA_FLOAT, 0, 1f);
            beta = arena.allocate(JAVA_FLOAT);
            beta.set(JAVA_FLOAT, 0, 0f);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        } catch (Throwable t) {
            arena.close();
            throw new IllegalStateException("cuBLAS at " + library + ": " + t, t);
        }
    }

    /**
     * Opens the first candidate of {@code search} that loads and has every entry point, with its
     * handle on {@code stream} (a raw {@code CUstream}); an {@link IllegalStateException} listing
     * each candidate's failure and the places searched when none does.
     */
    public static CublasFfm open(CublasLibrarySearch search, long stream) {
        List<String> failures = new ArrayList<>();
        for (String candidate : search.candidates()) {
            try {
                return new CublasFfm(candidate, stream);
            } catch (RuntimeException | LinkageError e) {
                failures.add(candidate + ": " + e.getMessage());
            }
        }
        throw new IllegalStateException("no cuBLAS opened (" + String.join("; ", failures) + "); searched " + search.searched());
    }

    @Override
    public String describe() {
        return "cuBLAS " + version / 10000 + "." + version / 100 % 100 + "." + version % 100 + " via java.lang.foreign (" + library + ")";
    }

    /** Whether the library has the grouped GEMM, which {@link #groupedGemm} then calls once. */
    public boolean hasGroupedGemm() { return gemmGroupedBatchedEx != null; }

    @Override
    public synchronized void gemm(GemmCall call) {
        CublasGemmArgs g = CublasGemmArgs.checked("CublasFfm.gemm", call, closed);
        try {
            if (g.mathMode() != mathMode) {
                check("cublasSetMathMode", (int) setMathMode.invokeExact(handle, g.mathMode()), "mode " + g.mathMode());
                mathMode = g.mathMode();
            }
            if (g.batch() == 1) {
                check("cublasGemmEx", (int) gemmEx.invokeExact(handle, g.transA(), g.transB(), g.m(), g.n(), g.k(), alpha,
                        MemorySegment.ofAddress(g.a()), g.aType(), g.lda(), MemorySegment.ofAddress(g.b()), g.bType(), g.ldb(),
                        beta, MemorySegment.ofAddress(g.c()), g.cType(), g.ldc(), g.computeType(), g.algo()), g.shape());
            } else {
                check("cublasGemmStridedBatchedEx", (int) gemmStridedBatchedEx.invokeExact(handle, g.transA(), g.transB(),
                        g.m(), g.n(), g.k(), alpha, MemorySegment.ofAddress(g.a()), g.aType(), g.lda(), g.strideA(),
                        MemorySegment.ofAddress(g.b()), g.bType(), g.ldb(), g.strideB(), beta,
                        MemorySegment.ofAddress(g.c()), g.cType(), g.ldc(), g.strideC(), g.batch(), g.computeType(),
                        g.algo()), g.shape());
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("CublasFfm.gemm: " + t, t);
        }
    }

    @Override
    public synchronized void groupedGemm(List<GemmCall> problems, long pointers) {
        if (gemmGroupedBatchedEx == null || problems.isEmpty()) {
            Blas.super.groupedGemm(problems, pointers);
            return;
        }
        List<CublasGemmArgs> args = new ArrayList<>(problems.size());
        for (GemmCall call : problems) {
            CublasGemmArgs g = CublasGemmArgs.checked("CublasFfm.groupedGemm", call, closed);
            if (g.batch() != 1 || g.aType() != CublasGemmArgs.CUDA_R_32F || g.bType() != CublasGemmArgs.CUDA_R_32F
                    || (!args.isEmpty() && g.mathMode() != args.get(0).mathMode())) {
                throw new IllegalArgumentException("CublasFfm.groupedGemm: problems must be float32, of batch 1 and one math mode, "
                        + "got " + g.shape() + " batch=" + g.batch() + " mathMode=" + g.mathMode());
            }
            args.add(g);
        }
        int groups = args.size();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment alphas = call.allocate(JAVA_FLOAT, groups), betas = call.allocate(JAVA_FLOAT, groups);
            for (int i = 0; i < groups; i++) {
                alphas.setAtIndex(JAVA_FLOAT, i, 1f);
                betas.setAtIndex(JAVA_FLOAT, i, 0f);
            }
            CublasGemmArgs first = args.get(0);
            if (first.mathMode() != mathMode) {
                check("cublasSetMathMode", (int) setMathMode.invokeExact(handle, first.mathMode()), "mode " + first.mathMode());
                mathMode = first.mathMode();
            }
            check("cublasGemmGroupedBatchedEx", (int) gemmGroupedBatchedEx.invokeExact(handle,
                    ints(call, args, CublasGemmArgs::transA), ints(call, args, CublasGemmArgs::transB),
                    ints(call, args, CublasGemmArgs::m), ints(call, args, CublasGemmArgs::n), ints(call, args, CublasGemmArgs::k),
                    alphas, MemorySegment.ofAddress(pointers), CublasGemmArgs.CUDA_R_32F, ints(call, args, CublasGemmArgs::lda),
                    MemorySegment.ofAddress(pointers + 8L * groups), CublasGemmArgs.CUDA_R_32F, ints(call, args, CublasGemmArgs::ldb),
                    betas, MemorySegment.ofAddress(pointers + 16L * groups), CublasGemmArgs.CUDA_R_32F,
                    ints(call, args, CublasGemmArgs::ldc), groups, ints(call, args, g -> 1), first.computeType()),
                    groups + " groups, the first " + first.shape());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("CublasFfm.groupedGemm: " + t, t);
        }
    }

    /** One int per problem, in a host array of {@code arena}. */
    private static MemorySegment ints(Arena arena, List<CublasGemmArgs> args, ToIntFunction<CublasGemmArgs> field) {
        MemorySegment out = arena.allocate(JAVA_INT, args.size());
        for (int i = 0; i < args.size(); i++) out.setAtIndex(JAVA_INT, i, field.applyAsInt(args.get(i)));
        return out;
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            check("cublasDestroy_v2", (int) destroy.invokeExact(handle), "");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("CublasFfm.close: " + t, t);
        } finally {
            arena.close();
        }
    }

    private MethodHandle bind(Linker linker, SymbolLookup lookup, String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = lookup.find(name)
                .orElseThrow(() -> new IllegalStateException(library + " has no symbol " + name));
        return linker.downcallHandle(symbol, descriptor);
    }

    private static void check(String call, int status, String detail) {
        if (status != 0) throw new CudaException(call, CublasGemmArgs.statusName(status), detail);
    }
}
