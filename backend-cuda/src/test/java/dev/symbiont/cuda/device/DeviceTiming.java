package dev.symbiont.cuda.device;

import dev.symbiont.cuda.CudaBackend;

/** How the device benchmarks time a piece of work. */
final class DeviceTiming {
    private DeviceTiming() {}

    /** Milliseconds per call of {@code work} over {@code iterations} calls after {@code warmups}, the stream synchronised before and after the timed calls. */
    static double millisPerCall(CudaBackend backend, int warmups, int iterations, Runnable work) {
        for (int i = 0; i < warmups; i++) work.run();
        backend.synchronize();
        long start = System.nanoTime();
        for (int i = 0; i < iterations; i++) work.run();
        backend.synchronize();
        return (System.nanoTime() - start) / 1e6 / iterations;
    }
}
