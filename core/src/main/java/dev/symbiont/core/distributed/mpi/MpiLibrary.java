package dev.symbiont.core.distributed.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The MPI library of this process, opened with {@code java.lang.foreign}: {@code libmpi.so.40}
 * (Open MPI's soname), then {@code libmpi.so}, or the one named by
 * {@code -Dsymbiont.mpi.library=/path/to/libmpi.so}. It stays loaded for the life of the process
 * (MPI cannot be initialised twice anyway).
 */
final class MpiLibrary {
    /** The system property naming the library to open instead of the default search. */
    static final String PROPERTY = "symbiont.mpi.library";
    /** Open MPI's soname first, then the development link, which may point at any implementation. */
    static final List<String> DEFAULT_NAMES = List.of("libmpi.so.40", "libmpi.so");

    private final String name;
    private final SymbolLookup lookup;
    private final Linker linker = Linker.nativeLinker();

    private MpiLibrary(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
    }

    /** The libraries to try, in order: the property's value alone when set, else {@link #DEFAULT_NAMES}. */
    static List<String> candidates(String override) {
        return override == null || override.isBlank() ? DEFAULT_NAMES : List.of(override.strip());
    }

    /** Opens the first of {@link #candidates(String)} for this process's {@value #PROPERTY} that loads. */
    static MpiLibrary open() { return open(candidates(System.getProperty(PROPERTY))); }

    /**
     * Opens the first candidate that loads (a name is searched on the loader's path, a path is
     * opened as it is); an {@link IllegalStateException} naming every candidate and why it failed
     * when none does.
     */
    static MpiLibrary open(List<String> candidates) {
        List<String> failures = new ArrayList<>();
        for (String candidate : candidates) {
            try {
                SymbolLookup lookup = candidate.contains("/")
                        ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global())
                        : SymbolLookup.libraryLookup(candidate, Arena.global());
                return new MpiLibrary(candidate, lookup);
            } catch (IllegalArgumentException e) {
                failures.add(candidate + " (" + e.getMessage() + ")");
            }
        }
        throw new IllegalStateException("MPI library not found: tried " + String.join(", ", failures)
                + ". Install Open MPI (Debian/Ubuntu: apt-get install openmpi-bin) or name the library with -D"
                + PROPERTY + "=/path/to/libmpi.so");
    }

    /** The name or path the library was opened by, for messages. */
    String name() { return name; }

    /** The address of the global {@code symbol}: Open MPI's handles are such addresses. */
    MemorySegment symbol(String symbol) {
        return lookup.find(symbol).orElseThrow(() -> new IllegalStateException(name + " has no symbol " + symbol));
    }

    /** A downcall handle for the function {@code symbol}. */
    MethodHandle function(String symbol, FunctionDescriptor descriptor) {
        return linker.downcallHandle(symbol(symbol), descriptor);
    }
}
