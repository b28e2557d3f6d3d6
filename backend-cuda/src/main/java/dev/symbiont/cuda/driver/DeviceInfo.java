package dev.symbiont.cuda.driver;

/**
 * What a device is: its name, compute capability ({@code major.minor}, e.g. 9.0 for an H100),
 * memory, and the limits launch configuration reads.
 */
public record DeviceInfo(String name, int major, int minor, long totalBytes, int multiprocessors,
                         int maxThreadsPerBlock, int maxSharedBytesPerBlock, int warpSize) {

    /** {@code sm_90} for compute capability 9.0. */
    public String arch() { return "sm_" + major + minor; }
}
