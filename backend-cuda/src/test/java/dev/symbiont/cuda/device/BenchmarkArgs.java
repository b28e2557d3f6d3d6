package dev.symbiont.cuda.device;

import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.jcuda.JCudaDriver;
import dev.symbiont.cuda.ptx.InterpretedDriver;

/**
 * A device benchmark's command line: an optional {@code --interpreted} first (a smoke run on the
 * PTX interpreter instead of the GPU), then integers, each position with its default.
 */
record BenchmarkArgs(boolean interpreted, int[] values) {

    static BenchmarkArgs parse(String[] args, int... defaults) {
        boolean interpreted = args.length > 0 && args[0].equals("--interpreted");
        int skip = interpreted ? 1 : 0;
        int[] values = defaults.clone();
        for (int i = 0; i < values.length && skip + i < args.length; i++) values[i] = Integer.parseInt(args[skip + i]);
        return new BenchmarkArgs(interpreted, values);
    }

    int get(int position) { return values[position]; }

    /** The backend the benchmark runs on: device 0 through JCuda, or the PTX interpreter. */
    CudaBackend backend() {
        return new CudaBackend(interpreted ? new InterpretedDriver() : JCudaDriver.open(), 0);
    }
}
