package dev.symbiont.cuda.nccl;

import dev.symbiont.cuda.blas.CublasLibrarySearch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where {@code libnccl.so.2} is looked for: only the file named by {@code -D}{@value #PROPERTY}
 * when it is set (a library named on purpose is not silently replaced by another); otherwise the
 * library path ({@code java.library.path}, {@code LD_LIBRARY_PATH}, the CUDA toolkit's folders),
 * the {@code nvidia/nccl/lib} folder of the {@code nvidia-nccl-cu12}/{@code -cu13} wheels in the
 * usual site-packages (found as {@link CublasLibrarySearch} finds cuBLAS's wheel, by listing
 * folders), and last the bare soname, which {@code dlopen} resolves through the loader's cache.
 *
 * @param candidates what to try to open, in order: absolute paths, then the bare soname
 * @param searched   the places looked in, for the message when none opens
 */
public record NcclLibrary(List<String> candidates, List<String> searched) {
    /** The system property naming the library file to open instead of searching. */
    public static final String PROPERTY = "symbiont.nccl.library";
    static final String SONAME = "libnccl.so.2";
    /** Inside a site-packages folder: the nvidia-nccl wheels' layout. */
    static final String WHEEL_LIB_DIR = "nvidia/nccl/lib";

    /** The search on this machine. */
    public static NcclLibrary here() {
        List<Path> libraryDirs = new ArrayList<>();
        CublasLibrarySearch.addPathList(libraryDirs, System.getProperty("java.library.path"));
        CublasLibrarySearch.addPathList(libraryDirs, System.getenv("LD_LIBRARY_PATH"));
        libraryDirs.addAll(List.of(Path.of("/usr/local/cuda/lib64"), Path.of("/usr/lib/x86_64-linux-gnu"), Path.of("/usr/lib64")));
        List<String> prefixes = new ArrayList<>();
        prefixes.add(System.getenv("VIRTUAL_ENV"));
        prefixes.add(System.getenv("CONDA_PREFIX"));
        prefixes.addAll(CublasLibrarySearch.pythonPrefixesOnPath(System.getenv("PATH")));
        return of(System.getProperty(PROPERTY), libraryDirs, CublasLibrarySearch.pythonSiteDirs(System.getProperty("user.home"), prefixes));
    }

    /** The search over given places (tests give temporary folders). */
    public static NcclLibrary of(String property, List<Path> libraryDirs, List<Path> siteDirs) {
        if (property != null && !property.isBlank()) {
            return new NcclLibrary(List.of(property.strip()), List.of("-D" + PROPERTY + "=" + property.strip()));
        }
        List<Path> dirs = new ArrayList<>(libraryDirs);
        for (Path site : siteDirs) dirs.add(site.resolve(WHEEL_LIB_DIR));
        Set<String> candidates = new LinkedHashSet<>();
        for (Path dir : dirs) {
            Path file = dir.resolve(SONAME);
            if (Files.isRegularFile(file)) candidates.add(file.toAbsolutePath().toString());
        }
        candidates.add(SONAME);
        List<String> searched = List.of(PROPERTY + " unset", SONAME + " in " + dirs.stream().distinct().map(Path::toString).toList(),
                "the loader's cache (dlopen of " + SONAME + ")");
        return new NcclLibrary(List.copyOf(candidates), searched);
    }

    /**
     * The first candidate that opens with every function bound; an {@link IllegalStateException}
     * naming each candidate's failure and the places searched when none does.
     */
    public Nccl open() {
        List<String> failures = new ArrayList<>();
        for (String candidate : candidates) {
            try {
                return NcclCalls.open(candidate);
            } catch (RuntimeException | LinkageError e) {
                failures.add(candidate + ": " + e.getMessage());
            }
        }
        throw new IllegalStateException("NCCL library not found (" + String.join("; ", failures) + "); searched " + searched
                + ". Install NCCL (pip install nvidia-nccl-cu12, or the libnccl2 package) or name the library with -D"
                + PROPERTY + "=/path/to/" + SONAME);
    }
}
