package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.optim.AdamW;
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
 * One language-model training step — forward, cross-entropy, backward, AdamW step, zero grad —
 * of three models of about equal size at width 128 over a 256-token vocabulary: GPT (3 blocks of
 * attention + MLP, 12·d² weights each), Mamba-1 and Mamba-2 (5 blocks each, about 6·d² weights:
 * the Mamba paper's two Mamba blocks per Transformer block). Non-embedding parameters: GPT 594,944,
 * Mamba-1 583,168, Mamba-2 590,328 (printed at setup); GPT also has a seq × 128 position table.
 * Attention's cost grows with seq², the scans' with seq — the article's claim, measured. Mamba-2's
 * SSD runs on the selective scan by default; {@code -jvmArgsAppend '... -Dsymbiont.mamba2.ssd=chunked'}
 * measures its chunked matrix form ({@code Mamba2SsdProfile} compares the two in one JVM).
 * Tokens per second = batch · seq / (time per step).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx8g"})
public class MambaVsGptStepBenchmark {
    static final int VOCAB = 256, D_MODEL = 128, GPT_LAYERS = 3, GPT_HEADS = 4, MAMBA_LAYERS = 5;

    @Param({"gpt", "mamba", "mamba2"})
    public String model;

    @Param({"256", "1024", "4096"})
    public int seq;

    @Param({"1"})
    public int batch;

    private CausalLM lm;
    private AdamW optimizer;
    private Tensor ids, targets;

    /** The benchmark's model of family {@code name} for sequences of up to {@code seq} tokens. */
    static CausalLM create(String name, int seq) {
        Generator g = new Generator(42);
        return switch (name) {
            case "gpt" -> new Gpt(GptConfig.of(VOCAB, D_MODEL, GPT_LAYERS, GPT_HEADS, seq), g);
            case "mamba" -> new MambaLM(MambaLMConfig.of(VOCAB, D_MODEL, MAMBA_LAYERS), g);
            case "mamba2" -> new MambaLM(MambaLMConfig.mamba2(VOCAB, Mamba2Config.of(D_MODEL), MAMBA_LAYERS), g);
            default -> throw new IllegalArgumentException("model " + name);
        };
    }

    /** Parameters outside the token embeddings (tied to the head) and GPT's position table. */
    static long nonEmbeddingParameters(CausalLM lm) {
        long[] n = {0};
        lm.namedParameters().forEach((k, p) -> {
            if (!k.endsWith("embeddings.weight") && !k.endsWith("_emb.weight")) n[0] += p.value().numel();
        });
        return n[0];
    }

    @Setup
    public void setUp() {
        lm = create(model, seq);
        lm.train();
        optimizer = new AdamW(lm.parameterGroups(0.1), AdamW.options(1e-3));
        Generator g = new Generator(1);
        long[] tokens = new long[batch * (seq + 1)];
        for (int i = 0; i < tokens.length; i++) tokens[i] = g.nextInt(VOCAB);
        Tensor all = Tensor.fromArray(tokens, batch, seq + 1);
        ids = all.narrow(1, 0, seq).contiguous();
        targets = all.narrow(1, 1, seq).contiguous();
        System.out.println(model + ": " + lm.parameterCount() + " parameters, " + nonEmbeddingParameters(lm) + " outside the embeddings");
    }

    @Benchmark
    public double step() {
        Tensor loss = lm.loss(ids, targets);
        loss.backward();
        optimizer.step();
        optimizer.zeroGrad();
        return loss.item();
    }
}
