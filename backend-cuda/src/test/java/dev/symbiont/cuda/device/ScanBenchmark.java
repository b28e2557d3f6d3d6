package dev.symbiont.cuda.device;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.fused.scan.ScanKernels.SelectiveScanArgs;
import dev.symbiont.core.fused.scan.ScanKernels.SelectiveScanResult;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.jcuda.JCudaDriver;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import dev.symbiont.nn.mamba.Ssd;
import dev.symbiont.nn.mamba.SsdScan;

import java.util.List;
import java.util.Locale;

/**
 * The cuda backend's scan kernels on a real GPU (run by {@code gpu-check.sh scan}, not a test).
 * <ul>
 *   <li>The linear scan, block-local against grid-wide ({@code -Dsymbiont.cuda.linearScan}), on
 *       few (4) and many (1024) sequences of L = 2K … 64K steps, the sequences as rows (seq, L)
 *       scanned along dim 1 or as columns (L, seq) along dim 0, forward alone. One line each:
 *       {@code linear <block|grid> <rows|columns> <sequences> <L> <ms> <GB/s>}, the bytes counted
 *       as one read of a and b and one write of h (so the grid-wide variant's second read shows
 *       as a lower rate).</li>
 *   <li>The selective scan at Mamba-130M's and Mamba-1.4B's widths (d_inner 1536 and 4096, N 16,
 *       batch 4, L 2048, z, D and deltaBias given, softplus), its operands as the Mamba mixer passes
 *       them (delta, B and C transposed views of (batch, L, ·) projections) or all contiguous:
 *       {@code selective <d_inner> <model|contiguous> <forward ms> <forward+backward ms> <forward GB/s>},
 *       the forward's bytes being u, delta, z, out (batch, d_inner, L) and B, C (batch, N, L) once.</li>
 *   <li>Mamba-2's SSD at Mamba-2-130M's widths (24 heads of P 64, N 128, one group, D, batch 1,
 *       L 2K … 16K) in its two forms, the chunked kernels ({@code Ssd.chunked}, chunks of 256) and
 *       the selective scan ({@code SsdScan.scan}), through autograd as the mixer runs them:
 *       {@code ssd <chunked|scan> <L> <forward ms> <forward+backward ms>}.</li>
 * </ul>
 * Each time is the mean of {@value #ITERATIONS} calls after {@value #WARMUPS}, the stream
 * synchronised around them. {@code --interpreted} runs it on the PTX interpreter at tiny sizes (a smoke run).
 */
public final class ScanBenchmark {
    private static final int WARMUPS = 1, ITERATIONS = 5;
    private static final String VARIANT = "symbiont.cuda.linearScan";

    private ScanBenchmark() {}

    public static void main(String[] args) {
        boolean interpreted = args.length > 0 && args[0].equals("--interpreted");
        Driver driver = interpreted ? new InterpretedDriver() : JCudaDriver.open();
        CudaBackend backend = new CudaBackend(driver, 0);
        ScanKernels kernels = backend.fused(ScanKernels.FAMILY);
        System.out.println("# " + backend + ", " + kernels);
        int[] lengths = interpreted ? new int[] {600} : new int[] {2048, 8192, 32768, 65536};
        int[] sequences = interpreted ? new int[] {2} : new int[] {4, 1024};
        try (Scope s = Backends.use(backend)) {
            for (int seqs : sequences) {
                for (int len : lengths) {
                    for (String layout : new String[] {"rows", "columns"}) {
                        for (String variant : new String[] {"block", "grid"}) {
                            System.out.println(linear(backend, kernels, variant, layout, seqs, len));
                        }
                    }
                }
            }
            System.clearProperty(VARIANT);
            int[] widths = interpreted ? new int[] {8} : new int[] {1536, 4096};
            for (int width : widths) {
                for (String layout : new String[] {"model", "contiguous"}) {
                    System.out.println(selective(backend, kernels, width, layout, interpreted ? 1 : 4, interpreted ? 130 : 2048));
                }
            }
            for (int len : interpreted ? new int[] {40} : new int[] {2048, 8192, 16384}) {
                for (String form : new String[] {"chunked", "scan"}) System.out.println(ssd(backend, form, len, interpreted));
            }
        }
        backend.emptyCache();
    }

    private static String linear(CudaBackend backend, ScanKernels kernels, String variant, String layout, int seqs, int len) {
        System.setProperty(VARIANT, variant);
        Generator g = new Generator(1);
        boolean rows = layout.equals("rows");
        int[] shape = rows ? new int[] {seqs, len} : new int[] {len, seqs};
        Tensor a = Tensor.rand(g, shape), b = Tensor.randn(g, shape);
        double ms = time(backend, () -> kernels.linearScan(a, b, null, rows ? 1 : 0).storage().release());
        a.storage().release();
        b.storage().release();
        double bytes = 3.0 * 4 * seqs * len;
        return String.format(Locale.ROOT, "linear %s %s %d %d %.3f %.1f", variant, layout, seqs, len, ms, bytes / (ms * 1e-3) / 1e9);
    }

    private static String selective(CudaBackend backend, ScanKernels kernels, int width, String layout, int batch, int len) {
        int n = 16;
        Generator g = new Generator(2);
        boolean model = layout.equals("model");
        Tensor u = Tensor.randn(g, batch, width, len), z = Tensor.randn(g, batch, width, len);
        Tensor delta = model ? Tensor.randn(g, batch, len, width).transpose(1, 2) : Tensor.randn(g, batch, width, len);
        Tensor bm = model ? Tensor.randn(g, batch, len, n).transpose(1, 2) : Tensor.randn(g, batch, n, len);
        Tensor cm = model ? Tensor.randn(g, batch, len, n).transpose(1, 2) : Tensor.randn(g, batch, n, len);
        Tensor a = Tensor.rand(g, width, n).mul(-1), d = Tensor.randn(g, width), bias = Tensor.randn(g, width);
        SelectiveScanArgs args = new SelectiveScanArgs(u, delta, a, bm.unsqueeze(1), cm.unsqueeze(1), d, z, bias, true, null);
        Tensor gradOut = Tensor.randn(g, batch, width, len);
        double forwardMs = time(backend, () -> release(kernels.selectiveScan(args, false)));
        double bothMs = time(backend, () -> {
            SelectiveScanResult r = kernels.selectiveScan(args, false);
            ScanKernels.SelectiveScanGrads grads = kernels.selectiveScanBackward(args, r, gradOut);
            release(r);
            for (Tensor t : new Tensor[] {grads.du(), grads.ddelta(), grads.dA(), grads.dB(), grads.dC(), grads.dD(), grads.dz(),
                    grads.ddeltaBias()}) {
                t.storage().release();
            }
        });
        for (Tensor t : new Tensor[] {u, z, delta, bm, cm, a, d, bias, gradOut}) t.storage().release();
        double bytes = 4.0 * (4.0 * batch * width * len + 2.0 * batch * n * len);
        return String.format(Locale.ROOT, "selective %d %s %.3f %.3f %.1f", width, layout, forwardMs, bothMs,
                bytes / (forwardMs * 1e-3) / 1e9);
    }

    private static String ssd(CudaBackend backend, String form, int len, boolean interpreted) {
        int heads = interpreted ? 2 : 24, p = interpreted ? 4 : 64, n = interpreted ? 8 : 128, chunk = interpreted ? 16 : 256;
        Generator g = new Generator(3);
        List<Tensor> in = List.of(Tensor.randn(g, 1, len, heads, p), Tensor.rand(g, 1, len, heads).mul(0.1),
                Tensor.rand(g, heads).neg(), Tensor.randn(g, 1, len, 1, n), Tensor.randn(g, 1, len, 1, n), Tensor.randn(g, heads));
        for (Tensor t : in) t.requiresGrad(true);
        Tensor gradY = Tensor.randn(g, 1, len, heads, p);
        java.util.function.Supplier<Ssd.Output> run = () -> form.equals("chunked")
                ? Ssd.chunked(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), null, chunk)
                : SsdScan.scan(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), null);
        double forwardMs = time(backend, () -> {
            try (var noGrad = GradMode.disabled()) {
                release(run.get());
            }
        });
        double bothMs = time(backend, () -> {
            Ssd.Output o = run.get();
            o.y().backward(gradY);
            release(o);
            for (Tensor t : in) {
                t.grad().storage().release();
                t.zeroGrad();
            }
        });
        for (Tensor t : in) t.storage().release();
        gradY.storage().release();
        return String.format(Locale.ROOT, "ssd %s %d %.3f %.3f", form, len, forwardMs, bothMs);
    }

    private static void release(Ssd.Output o) {
        o.y().storage().release();
        o.finalState().storage().release();
    }

    private static void release(SelectiveScanResult r) {
        r.output().storage().release();
        if (r.saved() != null) r.saved().storage().release();
    }

    private static double time(CudaBackend backend, Runnable work) {
        return DeviceTiming.millisPerCall(backend, WARMUPS, ITERATIONS, work);
    }
}
