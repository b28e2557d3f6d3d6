package dev.symbiont.bench.torch;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.TransformerBlock;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.TensorArrayRefOptional;
import org.bytedeco.pytorch.TensorOptional;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.bytedeco.pytorch.global.torch.get_num_threads;
import static org.bytedeco.pytorch.global.torch.manual_seed;
import static org.bytedeco.pytorch.global.torch.randn;
import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;
import static org.bytedeco.pytorch.global.torch.set_num_threads;
import static org.bytedeco.pytorch.global.torch.show_config;

/**
 * Symbiont and PyTorch (libtorch 2.7.1, PyTorch's own CPU build: MKL, oneDNN) on the same
 * workloads in one JVM, 2 threads each, alternated round by round ({@link Alternation}):
 * <ul>
 *   <li>{@code block SEQ}: GptBlockBenchmark's GPT block (batch 8, d 256, 4 heads, FFN 1024,
 *       causal) against {@link TorchGptBlock}, forward and forward + backward of the sum.</li>
 *   <li>{@code attention SEQ}: AttentionBenchmark's causal attention forward + backward
 *       (batch 1, 8 heads, head_dim 64, float32, contiguous) against
 *       {@code scaled_dot_product_attention(is_causal=True)}.</li>
 * </ul>
 * Usage: {@code TorchPeer block|attention SEQ [ROUNDS [REPS]]}, {@code -Dwarmup=SECONDS} (20) of both
 * sides in turn first, {@code -Donly=symbiont|torch} for one side alone; run it with benchmarks/torch-peer.sh.
 */
public final class TorchPeer {
    static final int BATCH = 8, D_MODEL = 256, HEADS = 4, FFN = 1024;
    static final int ATTN_HEADS = 8, HEAD_DIM = 64;

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
        TransformerBlock block = new TransformerBlock(BlockConfig.of(D_MODEL, HEADS, FFN), new Generator(42));
        Tensor x = Tensor.randn(new Generator(1), BATCH, seq, D_MODEL).requiresGrad(true);
        TorchGptBlock torchBlock = new TorchGptBlock(D_MODEL, HEADS, FFN);
        org.bytedeco.pytorch.Tensor tx = TorchTensors.leaf(randn(BATCH, seq, D_MODEL));

        runs.add("symbiont.forward", () -> {
            try (var noGrad = GradMode.disabled()) {
                block.forward(x, null, true, null);
            }
        });
        runs.add("torch.forward", () -> {
            try (var scope = new PointerScope(); var noGrad = new NoGradGuard()) {
                torchBlock.forward(tx, BATCH, seq);
            }
        });
        runs.add("symbiont.forwardBackward", () -> {
            block.forward(x, null, true, null).sum().backward();
            block.zeroGrad();
            x.zeroGrad();
        });
        runs.add("torch.forwardBackward", () -> {
            try (var scope = new PointerScope()) {
                torchBlock.forward(tx, BATCH, seq).sum().backward();
                torchBlock.zeroGrad();
                TorchTensors.clearGrad(tx);
            }
        });
    }

    private static void addAttention(Alternation runs, int seq) {
        Generator rng = new Generator(5);
        Tensor q = Tensor.randn(rng, 1, ATTN_HEADS, seq, HEAD_DIM).requiresGrad(true);
        Tensor k = Tensor.randn(rng, 1, ATTN_HEADS, seq, HEAD_DIM).requiresGrad(true);
        Tensor v = Tensor.randn(rng, 1, ATTN_HEADS, seq, HEAD_DIM).requiresGrad(true);
        Tensor gradOut = Tensor.randn(rng, 1, ATTN_HEADS, seq, HEAD_DIM);
        var tq = TorchTensors.leaf(randn(1, ATTN_HEADS, seq, HEAD_DIM));
        var tk = TorchTensors.leaf(randn(1, ATTN_HEADS, seq, HEAD_DIM));
        var tv = TorchTensors.leaf(randn(1, ATTN_HEADS, seq, HEAD_DIM));
        var tGradOut = randn(1, ATTN_HEADS, seq, HEAD_DIM);
        tGradOut.retainReference();

        runs.add("symbiont.forwardBackward", () -> {
            q.zeroGrad();
            k.zeroGrad();
            v.zeroGrad();
            Tensor.scaledDotProductAttention(q, k, v, null, true).backward(gradOut);
        });
        runs.add("torch.forwardBackward", () -> {
            try (var scope = new PointerScope()) {
                TorchTensors.clearGrad(tq);
                TorchTensors.clearGrad(tk);
                TorchTensors.clearGrad(tv);
                scaled_dot_product_attention(tq, tk, tv, new TensorOptional(), 0.0, true, new DoubleOptional(), false)
                        .backward(tGradOut, new BoolOptional(), false, new TensorArrayRefOptional());
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
