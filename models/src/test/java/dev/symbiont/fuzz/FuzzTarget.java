package dev.symbiont.fuzz;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * One loader under fuzzing. {@link Fuzzer} feeds it mutated files and holds it to the oracle:
 * {@link #load} either returns something that {@link #check} finds consistent with the bytes,
 * or throws {@link #failure()} with a message naming the file; anything else fails.
 *
 * <p>A new loader plugs in as one implementation, a folder of seed files under
 * {@code src/test/resources/fuzz-corpus/<name>/} and one test method in {@link LoaderFuzzTest}.
 */
public interface FuzzTarget {
    /** The corpus folder, and the name in reports. */
    String name();

    /** The file-name suffix the loader expects (".json", ".safetensors"). */
    String suffix();

    /** The exception the loader documents for a bad file. */
    Class<? extends Exception> failure();

    /** Loads {@code file}; this part is timed and its allocation measured. */
    Object load(Path file) throws Exception;

    /** Throws AssertionError unless {@code loaded} agrees with the {@code bytes} it came from. */
    void check(Object loaded, Path file, byte[] bytes) throws Exception;

    /**
     * The bytes loading {@code input} may allocate; a compressed format raises it by what the
     * input decompresses to.
     */
    default long allocationBound(byte[] input) {
        return Fuzzer.allocationBound(input.length);
    }

    /**
     * Mutations that know the format (a length prefix, say), used besides the generic ones;
     * {@code generic} applies one generic edit to any bytes, such as one part of the file.
     */
    default List<Mutation> formatMutations(Mutation generic) {
        return List.of();
    }

    /** An edit of a file's bytes; returns the edited bytes (or the same array when it did not apply). */
    @FunctionalInterface
    interface Mutation {
        byte[] apply(byte[] input, Random rng);
    }
}
