package dev.symbiont.cuda.driver;

/**
 * One compiled kernel group ({@code backend-cuda/src/main/cuda/<name>.cu}) as the build ships
 * it: the fatbin (cubins for the common GPUs plus PTX) for real devices, and the PTX text the
 * interpreter executes and the fatbin embeds.
 */
public record ModuleImage(String name, String ptx, byte[] fatbin) {}
