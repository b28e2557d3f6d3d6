package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.TransformerBlock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One GPT block (pre-LayerNorm, 4 heads, GELU MLP 256 → 1024 → 256, causal attention) on a
 * batch of 8 sequences of d_model 256: forward alone, and forward + backward of the sum of
 * its output (a training step without the optimizer), at seq 256 and 1024. The PyTorch peer
 * is benchmarks/gpt-block-torch.py on the same machine, or benchmarks/torch-peer.sh, which runs
 * libtorch's block and this one alternated in one JVM.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class GptBlockBenchmark {
    public static final int BATCH = 8, D_MODEL = 256, HEADS = 4, FFN = 1024;

    @Param({"256", "1024"})
    public int seq;

    private TransformerBlock block;
    private Tensor x;

    @Setup
    public void setUp() {
        block = newBlock();
        x = Tensor.randn(new Generator(1), BATCH, seq, D_MODEL).requiresGrad(true);
    }

    static TransformerBlock newBlock() {
        return new TransformerBlock(BlockConfig.of(D_MODEL, HEADS, FFN), new Generator(42));
    }

    @Benchmark
    public Tensor forward() {
        try (var noGrad = GradMode.disabled()) {
            return block.forward(x, null, true, null);
        }
    }

    @Benchmark
    public Tensor forwardBackward() {
        Tensor y = block.forward(x, null, true, null);
        y.sum().backward();
        block.zeroGrad();
        x.zeroGrad();
        return y;
    }
}
