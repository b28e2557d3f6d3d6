package dev.symbiont.cuda.device;

import dev.symbiont.cuda.blas.Blas;
import dev.symbiont.cuda.blas.BlasRoutes;
import dev.symbiont.cuda.blas.GemmCall;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.jcuda.JCudaDriver;
import dev.symbiont.cuda.memory.CachingAllocator;
import dev.symbiont.cuda.memory.DeviceBlock;

import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.SplittableRandom;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * GEMM through the backend's BLAS route on a real GPU (run by {@code gpu-check.sh}, not a test):
 * the driver, caching allocator and route the backend uses, square n×n products in float32,
 * TF32 and bf16 (float32 output, float32 accumulation), timed with CUDA events over
 * {@code iterations} products after {@code warmups}. One line per case:
 * {@code symbiont <precision> <n> <ms per product> <TFLOP/s>}; the route first.
 * Arguments: n values (default 1024 2048 4096 8192).
 */
public final class GemmBenchmark {
    private static final int WARMUPS = 3, ITERATIONS = 10;

    private GemmBenchmark() {}

    public static void main(String[] args) {
        int[] sizes = args.length == 0 ? new int[] {1024, 2048, 4096, 8192}
                : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        JCudaDriver driver = JCudaDriver.open();
        driver.makeCurrent(0);
        Driver.Stream stream = driver.createStream();
        CachingAllocator allocator = new CachingAllocator(driver);
        BlasRoutes routes = BlasRoutes.select(driver, stream, () -> {
            throw new IllegalStateException("no cuBLAS route opened; this benchmark measures cuBLAS");
        });
        System.out.println("# device " + driver.deviceInfo(0).name() + " (" + driver.deviceInfo(0).arch() + "), " + driver.describe());
        System.out.println("# route " + routes.describe());
        Blas blas = routes.blas();
        for (String precision : new String[] {"fp32", "tf32", "bf16"}) {
            for (int n : sizes) {
                System.out.println(run(driver, stream, allocator, blas, precision, n));
            }
        }
        blas.close();
        allocator.emptyCache();
        driver.destroyStream(stream);
    }

    private static String run(JCudaDriver driver, Driver.Stream stream, CachingAllocator allocator, Blas blas, String precision, int n) {
        boolean bf16 = precision.equals("bf16");
        long elements = (long) n * n;
        long inputBytes = elements * (bf16 ? 2 : 4);
        DeviceBlock a = allocator.allocate(inputBytes), b = allocator.allocate(inputBytes), c = allocator.allocate(elements * 4);
        MemorySegment host = driver.mallocHost(inputBytes);
        fillRandom(host, elements, bf16);
        driver.copyToDevice(a.address(), host, stream);
        driver.copyToDevice(b.address(), host, stream);
        driver.synchronize(stream);
        driver.freeHost(host);
        GemmCall.ElementType type = bf16 ? GemmCall.ElementType.BF16 : GemmCall.ElementType.F32;
        GemmCall call = new GemmCall(false, false, n, n, n, a.address(), type, n, 0, b.address(), type, n, 0,
                c.address(), n, 0, 1, precision.equals("tf32") ? GemmCall.MathMode.TF32 : GemmCall.MathMode.DEFAULT);
        for (int i = 0; i < WARMUPS; i++) blas.gemm(call);
        Driver.Event start = driver.record(stream);
        for (int i = 0; i < ITERATIONS; i++) blas.gemm(call);
        Driver.Event end = driver.record(stream);
        float ms = driver.elapsedMillis(start, end) / ITERATIONS;
        driver.destroyEvent(start);
        driver.destroyEvent(end);
        allocator.free(a);
        allocator.free(b);
        allocator.free(c);
        allocator.emptyCache();
        double tflops = 2.0 * n * n * (double) n / (ms * 1e-3) / 1e12;
        return String.format(Locale.ROOT, "symbiont %s %d %.3f %.1f", precision, n, ms, tflops);
    }

    /** Uniform values in [-1, 1), as float32 or as bf16 (the float's upper half, rounded to nearest even). */
    private static void fillRandom(MemorySegment host, long elements, boolean bf16) {
        SplittableRandom random = new SplittableRandom(42);
        for (long i = 0; i < elements; i++) {
            float v = (float) (random.nextDouble() * 2 - 1);
            if (bf16) {
                int bits = Float.floatToRawIntBits(v);
                host.setAtIndex(JAVA_SHORT, i, (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16));
            } else {
                host.setAtIndex(JAVA_FLOAT, i, v);
            }
        }
    }
}
