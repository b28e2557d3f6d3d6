package dev.symbiont.core.distributed;

import java.nio.file.Path;

/**
 * One check of a communicator, run by every rank of a group at the same time: each rank calls
 * {@link #body()} with its own communicator and asserts its own result.
 *
 * @param name what the check exercises, unique among the checks ({@code "allReduce SUM float32"})
 * @param body what each rank does; {@code shared} is a directory every rank of the run sees,
 *             empty at the start, for checks that must observe the other ranks (the barrier)
 */
public record CollectiveCheck(String name, Body body) {
    /** One rank's part of a check. */
    @FunctionalInterface
    public interface Body {
        void run(Communicator communicator, Path shared) throws Exception;
    }

    @Override
    public String toString() { return name; }
}
