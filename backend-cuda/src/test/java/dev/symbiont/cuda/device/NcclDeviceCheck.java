package dev.symbiont.cuda.device;

import dev.symbiont.core.DType;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.distributed.CollectiveCheck;
import dev.symbiont.core.distributed.CollectiveChecks;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Communicators;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.nccl.NcclCommunicator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * NCCL through the real {@code libnccl.so.2} for {@code gpu-check.sh}: under mpirun one rank per
 * GPU ({@code cuda:<local rank>}), alone a job of one rank, which still runs the whole binding
 * (unique id, init, every collective, destroy). Runs every check of the communicator conformance
 * kit on the GPU's tensors, then times an all-reduce of 256 MiB of float32 (nccl-tests' algbw and
 * busbw). Prints {@code checks: P passed, F failed} and the bandwidth line on rank 0; exits 1 when
 * a check failed. {@code args[0]}: a folder every rank sees, for the barrier check.
 */
public final class NcclDeviceCheck {
    private static final int ELEMENTS = 64 << 20, WARMUP = 3, TIMED = 10;

    private NcclDeviceCheck() {}

    public static void main(String[] args) throws Exception {
        Path shared = Path.of(args.length > 0 ? args[0] : "/tmp/symbiont-nccl-check");
        Communicator world = Communicators.world();
        CudaBackend gpu = (CudaBackend) Backends.get("cuda:" + NcclCommunicator.localRank(System.getenv()));
        int failed = 0, passed = 0;
        try (NcclCommunicator nccl = NcclCommunicator.create(world, gpu); Scope onGpu = Backends.use(gpu)) {
            if (nccl.rank() == 0) System.out.println("nccl: " + nccl.describe() + ", " + nccl.size() + " rank(s), rank 0 on " + gpu.device());
            int index = 0;
            for (CollectiveCheck check : CollectiveChecks.all()) {
                try {
                    check.body().run(nccl, Files.createDirectories(shared.resolve("check-" + index++)));
                    passed++;
                } catch (Exception | AssertionError e) {
                    failed++;
                    System.out.println("FAIL rank " + nccl.rank() + ": " + check.name() + ": " + e.getMessage());
                }
            }
            if (nccl.rank() == 0) System.out.println("checks: " + passed + " passed, " + failed + " failed");
            bandwidth(nccl, gpu);
        }
        world.close();
        System.exit(failed == 0 ? 0 : 1);
    }

    /** nccl-tests' numbers: algbw = bytes / time, busbw = algbw · 2(n-1)/n (what each link carries in a ring). */
    private static void bandwidth(NcclCommunicator nccl, CudaBackend gpu) {
        Tensor t = Tensor.full(1, DType.FLOAT32, ELEMENTS);
        for (int i = 0; i < WARMUP; i++) nccl.allReduce(t, Reduction.SUM).await();
        nccl.barrier();
        long start = System.nanoTime();
        for (int i = 0; i < TIMED; i++) nccl.allReduce(t, Reduction.SUM).await();
        gpu.synchronize();
        double seconds = (System.nanoTime() - start) / 1e9 / TIMED;
        double bytes = (double) ELEMENTS * Float.BYTES, n = nccl.size();
        double algbw = bytes / seconds / 1e9;
        if (nccl.rank() == 0) {
            System.out.printf(Locale.ROOT, "nccl all-reduce of %d MiB float32 over %d rank(s): %.3f ms, algbw %.1f GB/s, busbw %.1f GB/s%n",
                    (long) bytes >> 20, (int) n, seconds * 1e3, algbw, algbw * 2 * (n - 1) / n);
        }
    }
}
