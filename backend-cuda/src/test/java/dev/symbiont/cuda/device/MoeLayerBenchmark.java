package dev.symbiont.cuda.device;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.MoeConfig;
import dev.symbiont.nn.moe.MoeFeedForward;
import dev.symbiont.nn.moe.SwiGluExpert;

import java.util.Locale;

/**
 * The cuda backend's MoE layer on a real GPU (run by {@code gpu-check.sh moe}, not a test): a
 * dropless top-{@value #TOP_K} {@link MoeFeedForward} of E = 8 and 64 SwiGLU experts of hidden
 * ⌈8d / 3k⌉ (the {@code moe} command's sizing) next to the dense SwiGLU FFN of equal active
 * parameters (hidden k·h), over T tokens of width d, float32: the forward without gradients (the
 * gated grouped kernel writes only its output) and the forward with its backward, each layer with
 * the own grouped kernels ({@code moe}) and with cuBLAS's grouped GEMM ({@code moe-blas},
 * {@code -Dsymbiont.cuda.moeGemm=blas}: the group sizes read to the host first), timed as
 * {@link AttentionBenchmark} times its calls.
 * One line per layer: {@code <layer> <E> <k> <T> <d> <hidden> <forward ms> <forward+backward ms>
 * <forward ratio to dense> <forward+backward ratio to dense>}, the format {@code moe_torch.py} prints
 * for the Hugging Face Mixtral block in PyTorch and {@code moe_table.py} joins. Arguments: T and d (default 8192
 * and 1024); {@code --interpreted} first runs it on the PTX interpreter (a smoke run: give small sizes).
 */
public final class MoeLayerBenchmark {
    private static final int TOP_K = 2;
    private static final String BLAS_ROUTE = "symbiont.cuda.moeGemm";

    private MoeLayerBenchmark() {}

    public static void main(String[] args) {
        BenchmarkArgs a = BenchmarkArgs.parse(args, 8192, 1024);
        int tokens = a.get(0), d = a.get(1);
        int hidden = (8 * d + 3 * TOP_K - 1) / (3 * TOP_K);
        CudaBackend backend = a.backend();
        System.out.println("# " + backend + ", tokens " + tokens + ", d " + d + ", top-" + TOP_K + " of E experts of hidden "
                + hidden + " against a dense SwiGLU FFN of hidden " + TOP_K * hidden);
        try (Scope s = Backends.use(backend)) {
            Generator g = new Generator(42);
            Tensor x = Tensor.randn(g, tokens, d).requiresGrad(true), gradOut = Tensor.randn(g, tokens, d);
            double[] dense = time(backend, new SwiGluExpert(d, TOP_K * hidden, g), x, gradOut);
            System.out.println(line("dense", 1, tokens, d, TOP_K * hidden, dense, dense));
            for (int experts : new int[] {8, 64}) {
                MoeFeedForward moe = new MoeFeedForward(new MoeConfig(d, experts, TOP_K, hidden, Dispatch.dropless(), true, 0, 0), g);
                System.out.println(line("moe", experts, tokens, d, hidden, time(backend, moe, x, gradOut), dense));
                System.setProperty(BLAS_ROUTE, "blas");   // the grouped GEMMs as cuBLAS's grouped GEMM, for comparison
                System.out.println(line("moe-blas", experts, tokens, d, hidden, time(backend, moe, x, gradOut), dense));
                System.clearProperty(BLAS_ROUTE);
                moe.parameters().forEach(p -> p.value().storage().release());
            }
        }
        backend.emptyCache();
    }

    private static String line(String layer, int experts, int tokens, int d, int hidden, double[] ms, double[] dense) {
        return String.format(Locale.ROOT, "%s %d %d %d %d %d %.3f %.3f %.2f %.2f", layer, experts, TOP_K, tokens, d, hidden,
                ms[0], ms[1], ms[0] / dense[0], ms[1] / dense[1]);
    }

    /** Milliseconds per forward without gradients and per forward with backward. */
    private static double[] time(CudaBackend backend, Layer layer, Tensor x, Tensor gradOut) {
        Runnable forward = () -> {
            try (Scope noGrad = GradMode.disabled()) {
                layer.forward(x).storage().release();
            }
        };
        Runnable both = () -> {
            layer.forward(x).backward(gradOut);
            layer.parameters().forEach(Parameter::zeroGrad);
            x.zeroGrad();
        };
        return new double[] {AttentionBenchmark.time(backend, forward), AttentionBenchmark.time(backend, both)};
    }
}
