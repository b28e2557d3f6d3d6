package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.backend.RandomKind;
import dev.symbiont.cuda.driver.KernelArgs;

/**
 * Philox random numbers, bit-identical to {@link dev.symbiont.core.backend.Philox} ({@code random.cu}:
 * one thread per 128-bit block, the normal draw through ports of fdlibm's log, sin and cos).
 */
final class CudaRandom {
    private final CudaBackend backend;

    CudaRandom(CudaBackend backend) { this.backend = backend; }

    /** {@code size} float32 values: element i from block {@code offset + i / 4} of {@code seed}'s stream. */
    CudaStorage random(RandomKind kind, long size, long seed, long offset) {
        if (size < 0) throw new IllegalArgumentException("random: negative size " + size);
        backend.enter();
        CudaStorage out = backend.empty(DType.FLOAT32, size);
        String kernel = kind == RandomKind.UNIFORM ? "random_uniform_f32" : "random_normal_f32";
        backend.kernels().launch("random", kernel, dev.symbiont.core.backend.Philox.blocks(size),
                KernelArgs.of().pointer(out.address()).i64(size).i64(seed).i64(offset));
        return out;
    }
}
