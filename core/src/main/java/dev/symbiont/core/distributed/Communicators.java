package dev.symbiont.core.distributed;

/**
 * The communicator this process was started under: PyTorch's {@code init_process_group} with the
 * backend chosen from the environment. Outside a launcher it is a group of one rank, so code
 * written for several ranks runs unchanged on one.
 */
public final class Communicators {
    private Communicators() {}

    /** A group of this process alone: rank 0 of 1, every collective a no-op copy. */
    public static Communicator single() { return LocalCommunicator.group(1).get(0); }

    /** The group this process belongs to: a single rank unless a launcher started several. */
    public static Communicator world() { return single(); }
}
