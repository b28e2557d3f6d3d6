package dev.symbiont.cuda.ptx;

/**
 * What the interpreter refuses or finds: an instruction it does not implement, a malformed
 * module, or what compute-sanitizer would report on a GPU (an out-of-bounds access, a
 * shared-memory race, barrier divergence). The message names the kernel, the PTX line and,
 * at run time, the block and thread.
 */
public class PtxException extends RuntimeException {
    public PtxException(String message) { super(message); }
}
