package dev.symbiont.cuda.driver;

/** Free and total bytes of a device, as {@code cuMemGetInfo} reports them. */
public record MemInfo(long freeBytes, long totalBytes) {}
