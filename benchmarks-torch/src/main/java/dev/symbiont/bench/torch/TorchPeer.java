package dev.symbiont.bench.torch;

import dev.symbiont.bench.AttentionBenchmark;
import dev.symbiont.bench.GptBlockBenchmark;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorArrayRefOptional;
import org.bytedeco.pytorch.TensorOptional;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.symbiont.bench.GptBlockBenchmark.BATCH;
import static dev.symbiont.bench.GptBlockBenchmark.D_MODEL;
import static dev.symbiont.bench.GptBlockBenchmark.FFN;
import static org.bytedeco.pytorch.global.torch.get_num_threads;
import static org.bytedeco.pytorch.global.torch.manual_seed;
import static org.bytedeco.pytorch.global.torch.randn;
import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;
import static org.bytedeco.pytorch.global.torch.set_num_threads;
import static org.bytedeco.pytorch.global.torch.show_config;

/**
 * Symbiont and PyTorch (libtorch 2.7.1, PyTorch's own CPU build: MKL, oneDNN) on the same
 * workloads in one JVM, 2 threads each, alternated round by round ({@link Alternation}). Symbiont's
 * side is the JMH benchmark itself (its state, set up as JMH would, and its benchmark methods):
 * <ul>
 *   <li>{@code block SEQ}: {@link GptBlockBenchmark} (batch 8, d 256, 4 heads, FFN 1024, causal)
 *       against {@link TorchGptBlock}, forward and forward + backward of the sum.</li>
 *   <li>{@code attention SEQ}: {@link AttentionBenchmark}'s causal attention forward + backward
 *       (batch 1, 8 heads, head_dim 64, flash, float32, contiguous) against
 *       {@code scaled_dot_product_attention(is_causal=True)}.</li>
 * </ul>
 * Usage: {@code TorchPeer block|attention SEQ [ROUNDS [REPS]]}, {@code -Dwarmup=SECONDS} (20) of both
 * sides in turn first, {@code -Donly=symbiont|torch} for one side alone; run it with benchmarks/torch-peer.sh.
 */
public final class TorchPeer {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) throw new IllegalArgumentException("usage: TorchPeer block|attention SEQ [ROUNDS [REPS]]");
        String workload = args[0];
        int seq = Integer.parseInt(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 12;
        int reps = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        set_num_threads(2);
        manual_seed(0);
        System.out.println(header());

        Alternation runs = new Alternation();
        String tag = workload + " seq=" + seq;
        switch (workload) {
            case "block" -> addBlock(runs, seq);
            case "attention" -> addAttention(runs, seq);
            default -> throw new IllegalArgumentException("TorchPeer: workload must be block or attention, got " + workload);
        }
        runs.run(Double.parseDouble(System.getProperty("warmup", "20")), rounds, reps);
        System.out.print(runs.report(tag));
        if (workload.equals("block")) {
            System.out.print(runs.ratio("symbiont.forward", "torch.forward", tag));
            System.out.print(runs.ratio("symbiont.forwardBackward", "torch.forwardBackward", tag));
        } else {
            System.out.print(runs.ratio("symbiont.forwardBackward", "torch.forwardBackward", tag));
        }
    }

    private static void addBlock(Alternation runs, int seq) {
        GptBlockBenchmark symbiont = new GptBlockBenchmark();
        symbiont.seq = seq;
        symbiont.setUp();
        TorchGptBlock torchBlock = new TorchGptBlock(D_MODEL, GptBlockBenchmark.HEADS, FFN);
        Tensor x = TorchTensors.leaf(randn(BATCH, seq, D_MODEL));

        runs.add("symbiont.forward", symbiont::forward);
        runs.add("torch.forward", () -> {
            try (var scope = new PointerScope(); var noGrad = new NoGradGuard()) {
                torchBlock.forward(x, BATCH, seq);
            }
        });
        runs.add("symbiont.forwardBackward", symbiont::forwardBackward);
        runs.add("torch.forwardBackward", () -> {
            try (var scope = new PointerScope()) {
                torchBlock.forward(x, BATCH, seq).sum().backward();
                torchBlock.zeroGrad();
                TorchTensors.clearGrad(x);
            }
        });
    }

    private static void addAttention(Alternation runs, int seq) {
        AttentionBenchmark symbiont = new AttentionBenchmark();
        symbiont.seq = seq;
        symbiont.causal = true;
        symbiont.impl = "flash";
        symbiont.layout = "contiguous";
        symbiont.precision = "float32";
        symbiont.setUp();
        long[] shape = {AttentionBenchmark.BATCH, AttentionBenchmark.HEADS, seq, AttentionBenchmark.HEAD_DIM};
        Tensor q = TorchTensors.leaf(randn(shape)), k = TorchTensors.leaf(randn(shape)), v = TorchTensors.leaf(randn(shape));
        Tensor gradOut = randn(shape);
        gradOut.retainReference();

        runs.add("symbiont.forwardBackward", symbiont::forwardBackward);
        runs.add("torch.forwardBackward", () -> {
            try (var scope = new PointerScope()) {
                TorchTensors.clearGrad(q);
                TorchTensors.clearGrad(k);
                TorchTensors.clearGrad(v);
                scaled_dot_product_attention(q, k, v, new TensorOptional(), 0.0, true, new DoubleOptional(), false)
                        .backward(gradOut, new BoolOptional(), false, new TensorArrayRefOptional());
            }
        });
    }

    /** The CPU (family/model: the model name reads only "AMD EPYC" on these VMs), threads and libtorch's build. */
    private static String header() throws Exception {
        String family = "?", model = "?";
        for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("cpu family") && family.equals("?")) family = line.replaceAll(".*:\\s*", "");
            if (line.matches("model\\s*:.*") && model.equals("?")) model = line.replaceAll(".*:\\s*", "");
        }
        String blas = "?";
        for (String line : show_config().getString().split("\n")) {
            if (line.contains("Math Kernel Library") || line.contains("oneDNN") || line.contains("MKL-DNN")) {
                blas = blas.equals("?") ? line.trim() : blas + "; " + line.trim();
            }
        }
        return String.format("cpu family=%s model=%s; torch threads=%d; libtorch: %s", family, model, get_num_threads(), blas);
    }
}
