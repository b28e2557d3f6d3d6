package dev.symbiont.cuda.device;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.models.resnet.ResNet;
import dev.symbiont.models.resnet.ResNetConfig;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Parameter;

import java.util.Locale;

/**
 * The cuda backend's convolutions on a real GPU (run by {@code gpu-check.sh conv}, not a test):
 * conv2d 3×3, stride 1, padding 1, float32, at ResNet-50's four stage widths (batch 64: 64 channels
 * at 56², 128 at 28², 256 at 14², 512 at 7²), forward without gradients and forward with backward,
 * the forward also as the implicit GEMM ({@code conv-implicit} lines, {@code -Dsymbiont.cuda.conv=implicit}),
 * then one ResNet-50 training step (forward, cross-entropy, backward) at batch 64, 224², timed as
 * {@link AttentionBenchmark} times its calls. Lines: {@code symbiont conv <C> <H> <forward ms>
 * <forward+backward ms>} and {@code symbiont resnet50 <batch> <size> <step ms> -}, which
 * {@code conv_torch.py} prints for PyTorch (cuDNN) and {@code pair_table.py} joins. Arguments:
 * batch (64) and image size (224); {@code --interpreted} first runs it on the PTX interpreter (a
 * smoke run: give small sizes, e.g. {@code --interpreted 2 32}; batch norm in training needs more than one value per channel).
 */
public final class ConvBenchmark {
    private static final int[][] STAGES = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
    private static final String ROUTE = "symbiont.cuda.conv";

    private ConvBenchmark() {}

    public static void main(String[] args) {
        BenchmarkArgs a = BenchmarkArgs.parse(args, 64, 224);
        int batch = a.get(0), size = a.get(1);
        CudaBackend backend = a.backend();
        System.out.println("# " + backend + ", batch " + batch + ", float32");
        try (Scope s = Backends.use(backend)) {
            Generator g = new Generator(42);
            for (int[] stage : STAGES) {
                int c = stage[0], hw = Math.max(1, stage[1] * size / 224);
                Tensor x = Tensor.randn(g, batch, c, hw, hw).requiresGrad(true), w = Tensor.randn(g, c, c, 3, 3).mul(0.05).requiresGrad(true);
                Tensor gradOut = Tensor.randn(g, batch, c, hw, hw);
                double forward = AttentionBenchmark.time(backend, () -> {
                    try (Scope noGrad = GradMode.disabled()) {
                        Convolutions.conv2d(x, w, null, 1, 1, 1, 1).storage().release();
                    }
                });
                double both = AttentionBenchmark.time(backend, () -> {
                    Convolutions.conv2d(x, w, null, 1, 1, 1, 1).backward(gradOut);
                    x.zeroGrad();
                    w.zeroGrad();
                });
                System.out.println(String.format(Locale.ROOT, "symbiont conv %d %d %.3f %.3f", c, hw, forward, both));
                System.setProperty(ROUTE, "implicit");   // the forward as one implicit-GEMM kernel, for comparison
                double implicit = AttentionBenchmark.time(backend, () -> {
                    try (Scope noGrad = GradMode.disabled()) {
                        Convolutions.conv2d(x, w, null, 1, 1, 1, 1).storage().release();
                    }
                });
                System.clearProperty(ROUTE);
                System.out.println(String.format(Locale.ROOT, "symbiont conv-implicit %d %d %.3f -", c, hw, implicit));
                for (Tensor t : new Tensor[] {x, w, gradOut}) t.storage().release();
            }
            ResNet resnet = new ResNet(ResNetConfig.resnet50(), g);
            Tensor images = Tensor.randn(g, batch, 3, size, size);
            Tensor labels = Tensor.fromArray(new long[batch], batch);
            double step = AttentionBenchmark.time(backend, () -> {
                Losses.crossEntropy(resnet.forward(images), labels).backward();
                resnet.parameters().forEach(Parameter::zeroGrad);
            });
            System.out.println(String.format(Locale.ROOT, "symbiont resnet50 %d %d %.3f -", batch, size, step));
        }
        backend.emptyCache();
    }
}
