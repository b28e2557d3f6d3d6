package dev.symbiont.cuda;

import dev.symbiont.core.backend.RandomKind;

/** Philox random numbers, bit-identical to {@link dev.symbiont.core.backend.Philox} ({@code random.cu}). */
final class CudaRandom {
    private final CudaBackend backend;

    CudaRandom(CudaBackend backend) { this.backend = backend; }

    CudaStorage random(RandomKind kind, long size, long seed, long offset) {
        throw new UnsupportedOperationException("cuda backend: random not yet implemented");
    }
}
