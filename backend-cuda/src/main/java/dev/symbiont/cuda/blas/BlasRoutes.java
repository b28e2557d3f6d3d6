package dev.symbiont.cuda.blas;

import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.jcuda.JCudaDriver;
import dev.symbiont.cuda.jcuda.LoadFailures;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Which GEMM the backend's matmul runs, and why: JCublas where {@code libcublas.so.12} loads,
 * else cuBLAS 13 or 12 through {@code java.lang.foreign} ({@link CublasLibrarySearch}), else the
 * backend's own GEMM kernel (which is also what the PTX interpreter runs). Each route tried is
 * recorded with its outcome, for {@code symbiont backends} and for the error a user reads.
 */
public final class BlasRoutes {

    /** A route and what came of trying it ("chosen: ...", "failed: ..."). */
    public record Attempt(String route, String outcome) {
        @Override public String toString() { return route + ": " + outcome; }
    }

    /** A route to try: its name and how to open it. */
    record Candidate(String route, Supplier<Blas> open) {}

    static final String JCUBLAS = "JCublas (libcublas.so.12)";
    static final String FFM = "cuBLAS via java.lang.foreign";
    static final String KERNEL = "GEMM kernel";

    private final Blas blas;
    private final List<Attempt> attempts;

    private BlasRoutes(Blas blas, List<Attempt> attempts) {
        this.blas = blas;
        this.attempts = List.copyOf(attempts);
    }

    /**
     * Opens the first route that works for {@code stream} of {@code driver}. {@code kernel} makes the
     * backend's GEMM kernel Blas; it is called only if no cuBLAS opens or, behind cuBLAS, for a call
     * cuBLAS cannot run. A driver other than {@link JCudaDriver} (the interpreter) gets the kernel.
     */
    public static BlasRoutes select(Driver driver, Driver.Stream stream, Supplier<Blas> kernel) {
        if (!(driver instanceof JCudaDriver)) {
            return choose(List.of(new Candidate(JCUBLAS + " and " + FFM, () -> {
                throw new IllegalStateException("not tried: the driver (" + driver.describe() + ") is no real GPU");
            })), kernel);
        }
        return choose(List.of(
                new Candidate(JCUBLAS, () -> CublasJcuda.open(JCudaDriver.streamHandle(stream))),
                new Candidate(FFM, () -> CublasFfm.open(CublasLibrarySearch.here(), JCudaDriver.streamAddress(stream)))), kernel);
    }

    /** The first candidate that opens, behind the kernel fallback for what cuBLAS cannot run; the kernel alone if none does. */
    static BlasRoutes choose(List<Candidate> candidates, Supplier<Blas> kernel) {
        List<Attempt> attempts = new ArrayList<>();
        for (Candidate candidate : candidates) {
            try {
                Blas cublas = candidate.open().get();
                attempts.add(new Attempt(candidate.route(), "chosen, " + cublas.describe()));
                return new BlasRoutes(new KernelFallbackBlas(cublas, kernel), attempts);
            } catch (RuntimeException | LinkageError e) {
                attempts.add(new Attempt(candidate.route(), "failed, " + reason(e)));
            }
        }
        Blas own = kernel.get();
        attempts.add(new Attempt(KERNEL, "chosen, " + own.describe()));
        return new BlasRoutes(own, attempts);
    }

    /**
     * Which route {@link #select} would take on this machine, without a device or a cuBLAS handle:
     * whether JCublas's natives load, else which {@code libcublas} opens with the entry points.
     */
    public static String probe() {
        List<String> failures = new ArrayList<>();
        try {
            Class.forName("jcuda.jcublas.JCublas2", true, BlasRoutes.class.getClassLoader());
            return "cuBLAS via JCublas (libcublas.so.12 loads)";
        } catch (ClassNotFoundException | LinkageError e) {
            failures.add(JCUBLAS + ": " + reason(e));
        }
        CublasLibrarySearch search = CublasLibrarySearch.here();
        for (String candidate : search.candidates()) {
            try (Arena arena = Arena.ofConfined()) {
                SymbolLookup lookup = candidate.startsWith("/") ? SymbolLookup.libraryLookup(Path.of(candidate), arena)
                        : SymbolLookup.libraryLookup(candidate, arena);
                if (lookup.find("cublasGemmStridedBatchedEx").isPresent()) return "cuBLAS via java.lang.foreign (" + candidate + ")";
                failures.add(candidate + ": no cublasGemmStridedBatchedEx");
            } catch (RuntimeException e) {
                failures.add(candidate + ": " + reason(e));
            }
        }
        return "the GEMM kernel (no cuBLAS: " + String.join("; ", failures) + "; searched " + search.searched() + ")";
    }

    /** The GEMM to run. */
    public Blas blas() { return blas; }

    /** Each route tried, in order, with its outcome. */
    public List<Attempt> attempts() { return attempts; }

    /** "cuBLAS 13.0.2 via java.lang.foreign (...) [tried: JCublas (libcublas.so.12): failed, ...]". */
    public String describe() {
        return blas.describe() + (attempts.size() > 1
                ? " [tried: " + String.join("; ", attempts.subList(0, attempts.size() - 1).stream().map(Attempt::toString).toList()) + "]"
                : "");
    }

    /** A failure's class and message in one line, with a load failure's missing library. */
    static String reason(Throwable e) {
        return LoadFailures.describe(e);
    }
}
