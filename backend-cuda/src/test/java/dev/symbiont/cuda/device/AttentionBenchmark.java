package dev.symbiont.cuda.device;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.jcuda.JCudaDriver;
import dev.symbiont.cuda.ptx.InterpretedDriver;

import java.util.Arrays;
import java.util.Locale;

/**
 * The cuda backend's attention kernels on a real GPU (run by {@code gpu-check.sh attention}, not a
 * test): (batch 4, heads 16, seq, head_dim 128) q, k, v in float32 and bfloat16, causal and not,
 * the forward alone and the forward with its backward, timed over {@value #ITERATIONS} calls after
 * {@value #WARMUPS} with the stream synchronised around them. One line per case:
 * {@code symbiont <precision> <causal|full> <seq> <forward ms> <forward+backward ms> <forward TFLOP/s> <forward+backward TFLOP/s>},
 * FLOPs counted as FlashAttention-2's paper does (4·b·h·pairs·d forward, 2.5 times that backward)
 * for comparison with {@code attention_torch.py}. The bf16 forward and backward run on tensor cores
 * ({@code attention_mma.cu}, {@code attention_mma_backward.cu}).
 * Arguments: seq values (default 1024 … 16384); {@code --interpreted} first runs it on the PTX
 * interpreter (a smoke run: give small seq values).
 */
public final class AttentionBenchmark {
    private static final int BATCH = 4, HEADS = 16, HEAD_DIM = 128, WARMUPS = 1, ITERATIONS = 3;

    private AttentionBenchmark() {}

    public static void main(String[] args) {
        boolean interpreted = args.length > 0 && args[0].equals("--interpreted");
        int[] seqs = Arrays.stream(args).skip(interpreted ? 1 : 0).mapToInt(Integer::parseInt).toArray();
        if (seqs.length == 0) seqs = new int[] {1024, 2048, 4096, 8192, 16384};
        Driver driver = interpreted ? new InterpretedDriver() : JCudaDriver.open();
        CudaBackend backend = new CudaBackend(driver, 0);
        System.out.println("# " + backend + ", batch " + BATCH + ", heads " + HEADS + ", head_dim " + HEAD_DIM);
        AttentionKernels kernels = backend.fused(AttentionKernels.FAMILY);
        try (Scope s = Backends.use(backend)) {
            for (String precision : new String[] {"fp32", "bf16"}) {
                for (boolean causal : new boolean[] {false, true}) {
                    for (int seq : seqs) System.out.println(run(backend, kernels, precision, causal, seq));
                }
            }
        }
        backend.emptyCache();
    }

    private static String run(CudaBackend backend, AttentionKernels kernels, String precision, boolean causal, int seq) {
        DType dtype = precision.equals("bf16") ? DType.BFLOAT16 : DType.FLOAT32;
        Generator g = new Generator(42);
        Tensor q = input(g, dtype, seq), k = input(g, dtype, seq), v = input(g, dtype, seq);
        Tensor gradOut = Tensor.randn(g, BATCH, HEADS, seq, HEAD_DIM);
        double scale = 1 / Math.sqrt(HEAD_DIM);
        double forwardMs = time(backend, () -> release(kernels.attention(q, k, v, null, causal, scale)));
        double bothMs = time(backend, () -> {
            AttentionKernels.AttentionResult r = kernels.attention(q, k, v, null, causal, scale);
            AttentionKernels.AttentionGrads grads = kernels.attentionBackward(gradOut, q, k, v, null, causal, scale,
                    r.output(), r.logsumexp());
            release(r);
            grads.dq().storage().release();
            grads.dk().storage().release();
            grads.dv().storage().release();
        });
        for (Tensor t : new Tensor[] {q, k, v, gradOut}) t.storage().release();
        double pairs = causal ? seq * (seq + 1.0) / 2 : (double) seq * seq;
        double forwardFlops = 4.0 * BATCH * HEADS * pairs * HEAD_DIM;
        return String.format(Locale.ROOT, "symbiont %s %s %d %.3f %.3f %.1f %.1f", precision, causal ? "causal" : "full", seq,
                forwardMs, bothMs, forwardFlops / (forwardMs * 1e-3) / 1e12, 3.5 * forwardFlops / (bothMs * 1e-3) / 1e12);
    }

    private static Tensor input(Generator g, DType dtype, int seq) {
        Tensor t = Tensor.randn(g, BATCH, HEADS, seq, HEAD_DIM);
        if (dtype == DType.FLOAT32) return t;
        Tensor low = t.to(dtype);
        t.storage().release();
        return low;
    }

    private static void release(AttentionKernels.AttentionResult r) {
        r.output().storage().release();
        r.logsumexp().storage().release();
    }

    /** Milliseconds per call of {@code work}, the stream synchronised before and after the timed calls. */
    static double time(CudaBackend backend, Runnable work) {
        return DeviceTiming.millisPerCall(backend, WARMUPS, ITERATIONS, work);
    }
}
