package dev.symbiont.cuda.blas;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where {@code libcublas} is looked for, in order: the system property {@value #PROPERTY}, the
 * environment variable {@value #ENV} (each a library file or a folder holding one), the library
 * path ({@code java.library.path}, {@code LD_LIBRARY_PATH}, the CUDA toolkit's folders), the lib
 * folders of the Python packages {@code nvidia-cublas} / {@code nvidia-cublas-cu12} in the usual
 * site-packages (how the GPU machines we reach have CUDA 13's cuBLAS), and last the bare sonames,
 * which {@code dlopen} resolves through the loader's cache. {@code .so.13} before {@code .so.12}.
 * Finding the folders reads directories only: no Python process is started.
 *
 * @param candidates what to try to open, in order: absolute paths, then bare sonames
 * @param searched   the places looked in, for the message when none opens
 */
public record CublasLibrarySearch(List<String> candidates, List<String> searched) {
    public static final String PROPERTY = "symbiont.cublas.path";
    public static final String ENV = "SYMBIONT_CUBLAS";
    static final List<String> SONAMES = List.of("libcublas.so.13", "libcublas.so.12");
    /** Inside a site-packages folder: nvidia-cublas 13 (cu13), nvidia-cublas-cu12, and the split layout of some 12.x wheels. */
    static final List<String> WHEEL_LIB_DIRS = List.of("nvidia/cu13/lib", "nvidia/cublas/lib", "nvidia/cu12/lib");
    static final List<Path> TOOLKIT_DIRS = List.of(Path.of("/usr/local/cuda/lib64"),
            Path.of("/usr/local/cuda/targets/x86_64-linux/lib"), Path.of("/usr/lib/x86_64-linux-gnu"), Path.of("/usr/lib64"));

    /** The search on this machine. */
    public static CublasLibrarySearch here() {
        List<Path> libraryDirs = new ArrayList<>();
        addPathList(libraryDirs, System.getProperty("java.library.path"));
        addPathList(libraryDirs, System.getenv("LD_LIBRARY_PATH"));
        libraryDirs.addAll(TOOLKIT_DIRS);
        List<String> prefixes = new ArrayList<>();
        prefixes.add(System.getenv("VIRTUAL_ENV"));
        prefixes.add(System.getenv("CONDA_PREFIX"));
        prefixes.addAll(pythonPrefixesOnPath(System.getenv("PATH")));
        return of(System.getProperty(PROPERTY), System.getenv(ENV), libraryDirs, pythonSiteDirs(System.getProperty("user.home"), prefixes));
    }

    /** The search over given places (tests give temporary folders). */
    public static CublasLibrarySearch of(String property, String env, List<Path> libraryDirs, List<Path> siteDirs) {
        Set<String> candidates = new LinkedHashSet<>();
        List<String> searched = new ArrayList<>();
        explicit(PROPERTY, property, candidates, searched);
        explicit(ENV, env, candidates, searched);
        List<Path> dirs = new ArrayList<>(libraryDirs);
        for (Path site : siteDirs) for (String lib : WHEEL_LIB_DIRS) dirs.add(site.resolve(lib));
        for (String soname : SONAMES) {
            for (Path dir : dirs) {
                Path file = dir.resolve(soname);
                if (Files.isRegularFile(file)) candidates.add(file.toAbsolutePath().toString());
            }
        }
        searched.add(SONAMES + " in " + dirs.stream().distinct().map(Path::toString).toList());
        candidates.addAll(SONAMES);
        searched.add("the loader's cache (dlopen of the bare sonames)");
        return new CublasLibrarySearch(List.copyOf(candidates), List.copyOf(searched));
    }

    private static void explicit(String name, String value, Set<String> candidates, List<String> searched) {
        if (value == null || value.isBlank()) {
            searched.add(name + " unset");
            return;
        }
        Path path = Path.of(value);
        if (Files.isRegularFile(path)) {
            candidates.add(path.toAbsolutePath().toString());
            searched.add(name + "=" + value);
            return;
        }
        boolean found = false;
        if (Files.isDirectory(path)) {
            for (String soname : SONAMES) {
                if (Files.isRegularFile(path.resolve(soname))) {
                    candidates.add(path.resolve(soname).toAbsolutePath().toString());
                    found = true;
                }
            }
        }
        searched.add(name + "=" + value + (found ? "" : Files.isDirectory(path) ? " (a folder without " + SONAMES + ")" : " (no such file)"));
    }

    /** Adds the folders of a {@code java.library.path}-style list to {@code dirs}. */
    public static void addPathList(List<Path> dirs, String pathList) {
        if (pathList == null) return;
        for (String p : pathList.split(java.io.File.pathSeparator)) if (!p.isBlank()) dirs.add(Path.of(p));
    }

    /** site-packages and dist-packages of the Python 3 installations in the usual places, found by listing folders. */
    public static List<Path> pythonSiteDirs(String home, List<String> prefixes) {
        List<Path> libRoots = new ArrayList<>(List.of(Path.of("/usr/local/lib"), Path.of("/usr/lib"), Path.of("/opt/conda/lib")));
        if (home != null) libRoots.add(Path.of(home, ".local/lib"));
        for (String prefix : prefixes) if (prefix != null && !prefix.isBlank()) libRoots.add(Path.of(prefix, "lib"));
        List<Path> sites = new ArrayList<>();
        for (Path root : libRoots) {
            for (Path python : pythonFolders(root)) {
                for (String site : List.of("site-packages", "dist-packages")) {
                    if (Files.isDirectory(python.resolve(site))) sites.add(python.resolve(site));
                }
            }
        }
        return sites;
    }

    /**
     * The installation prefixes of the {@code python3} programs on {@code PATH} ({@code <prefix>/bin/python3}),
     * so a virtual environment that is not activated (e.g. {@code /opt/torch/.venv}) is searched too.
     */
    public static List<String> pythonPrefixesOnPath(String path) {
        if (path == null) return List.of();
        List<String> prefixes = new ArrayList<>();
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isBlank()) continue;
            Path python = Path.of(dir, "python3");
            if (Files.isExecutable(python) && Path.of(dir).getParent() != null) {
                prefixes.add(Path.of(dir).toAbsolutePath().getParent().toString());
            }
        }
        return prefixes;
    }

    private static List<Path> pythonFolders(Path root) {
        if (!Files.isDirectory(root)) return List.of();
        try (Stream<Path> children = Files.list(root)) {
            return children.filter(p -> p.getFileName().toString().startsWith("python3")).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
