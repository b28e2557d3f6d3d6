package dev.symbiont.bench;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The Java heap it takes to load a safetensors checkpoint onto the current backend. Two modes,
 * run as separate JVMs so the writer's tensors are not on the loader's heap:
 *
 * <pre>
 * write FILE MIB TENSORS [DTYPE]   a checkpoint of TENSORS equal tensors, MIB mebibytes in all (float32 unless DTYPE)
 * load FILE [DTYPE]                reads it with Safetensors.read (converting floating tensors to DTYPE when given)
 * </pre>
 *
 * Load reports the heap in use after a full collection before loading, the peak of the heap's
 * memory pools while loading (the sum of each pool's peak: an upper bound that counts garbage
 * not yet collected, since the collector runs only under pressure), and what stays reachable
 * after a full collection (the loaded tensors themselves on a heap backend; G1 rounds each
 * array past half a region up to whole regions). The smallest {@code -Xmx} at which a load
 * succeeds is the other honest measure: {@code benchmarks/checkpoint-load-memory.sh} writes the
 * checkpoints and finds it for each.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar
 * dev.symbiont.bench.CheckpointLoadMemoryReport write /tmp/ckpt.safetensors 512 32}, then
 * {@code ... load /tmp/ckpt.safetensors}.
 */
public final class CheckpointLoadMemoryReport {
    private CheckpointLoadMemoryReport() {}

    public static void main(String[] args) throws Exception {
        if (args.length >= 4 && args[0].equals("write")) {
            write(Path.of(args[1]), Long.parseLong(args[2]), Integer.parseInt(args[3]),
                    args.length > 4 ? DType.valueOf(args[4].toUpperCase(Locale.ROOT)) : DType.FLOAT32);
        } else if (args.length >= 2 && args[0].equals("load")) {
            load(Path.of(args[1]), args.length > 2 ? DType.valueOf(args[2].toUpperCase(Locale.ROOT)) : null);
        } else {
            System.err.println("usage: write FILE MIB TENSORS [DTYPE] | load FILE [DTYPE]");
            System.exit(2);
        }
    }

    static void write(Path file, long mib, int count, DType dtype) throws Exception {
        long elements = mib * 1024 * 1024 / dtype.byteSize() / count;
        int rows = 1024, cols = Math.toIntExact(elements / rows);
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        Generator g = new Generator(1);
        for (int i = 0; i < count; i++) tensors.put("layers." + i + ".weight", Tensor.randn(g, rows, cols).to(dtype));
        Safetensors.write(file, tensors);
        System.out.printf(Locale.ROOT, "wrote %s: %d tensors of (%d, %d) %s, %.1f MiB%n", file, count, rows, cols, dtype,
                Files.size(file) / 1048576.0);
    }

    static void load(Path file, DType dtype) throws Exception {
        Backend backend = Backends.current();
        long before = heapUsedAfterCollection();
        for (MemoryPoolMXBean pool : heapPools()) pool.resetPeakUsage();
        long t0 = System.nanoTime();
        SafetensorsFile loaded = dtype == null ? Safetensors.read(file, backend) : Safetensors.read(file, backend, dtype);
        double ms = (System.nanoTime() - t0) / 1e6;
        long peak = 0;
        for (MemoryPoolMXBean pool : heapPools()) peak += pool.getPeakUsage().getUsed();
        long after = heapUsedAfterCollection();
        Reference.reachabilityFence(loaded);
        System.out.printf(Locale.ROOT, "load %s (%.1f MiB, %d tensors%s) on %s: heap before %.1f MiB, peak while loading %.1f MiB,"
                        + " retained %.1f MiB, %.0f ms%n",
                file, Files.size(file) / 1048576.0, loaded.tensors().size(), dtype == null ? "" : " as " + dtype,
                backend.name(), before / 1048576.0, peak / 1048576.0, (after - before) / 1048576.0, ms);
    }

    private static Iterable<MemoryPoolMXBean> heapPools() {
        return ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP).toList();
    }

    private static long heapUsedAfterCollection() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
