package dev.symbiont.bench;

import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmPath;
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

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The vector GEMM on the products of a Transformer training step (batch 8 × seq 256 = 2048
 * rows, d_model 256, FFN 1024, 4 heads of 64), each with the strides autograd hands it:
 * Linear's forward x·Wᵀ reads W transposed, the input gradient g·W reads it as stored, the
 * weight gradient xᵀ·g reads the activations transposed; attention multiplies 32 (batch × head)
 * pairs; the d×d projections (q, k, v, output) with their gradients; and a Linear layer's
 * fused forms, the FFN-up product with its bias in the epilogue and the FFN-up weight gradient
 * with the bias gradient's row sums. Time per product in ms; GFLOP/s = 2·batch·m·n·k / (ms · 1e6).
 *
 * <p>{@link MainJob} holds the products of {@code symbiont train}'s default model instead (batch
 * 32 × context 128 = 4096 rows, d 128, MLP 512), through the entry points {@code CpuLinear}
 * calls: run it alone with {@code MatmulShapesBenchmark.MainJob}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-XX:+UseG1GC"})
public class MatmulShapesBenchmark {

    /** name: batch, m, n, k, then A's row and column strides and B's (per problem; batch strides are dense). */
    @Param({
            "ffnUp_xWt",       // (2048,256)·(1024,256)ᵀ
            "ffnDown_hWt",     // (2048,1024)·(256,1024)ᵀ
            "gradH_gW",        // (2048,256)·(256,1024)
            "gradX_gW",        // (2048,1024)·(1024,256)
            "gradW_hTg",       // (2048,1024)ᵀ·(2048,256)
            "gradW_xTg",       // (2048,256)ᵀ·(2048,1024)
            "proj_xWt",        // (2048,256)·(256,256)ᵀ: the output projection
            "gradXProj_gW",    // (2048,256)·(256,256)
            "gradWProj_gTx",   // (2048,256)ᵀ·(2048,256)
            "ffnUpBias_xWt",   // ffnUp with the bias in the epilogue (linear's forward)
            "gradWSums_gTx",   // gradW_hTg with the bias gradient's row sums (linear's backward)
            "qkv_xWt",         // (2048,256)·(768,256)ᵀ: q, k and v as one product (linear_split)
            "scores_qKt",      // 32 × (256,64)·(256,64)ᵀ
            "context_pV"})     // 32 × (256,256)·(256,64)
    public String shape;

    private int batch, m, n, k, aRs, aCs, bRs, bCs;
    private Gemm gemm;
    private float[] a, b, c, epilogue;

    @Setup
    public void setup() {
        int[] s = switch (shape) {
            case "ffnUp_xWt" -> new int[] {1, 2048, 1024, 256, 256, 1, 1, 256};
            case "ffnDown_hWt" -> new int[] {1, 2048, 256, 1024, 1024, 1, 1, 1024};
            case "gradH_gW" -> new int[] {1, 2048, 1024, 256, 256, 1, 1024, 1};
            case "gradX_gW" -> new int[] {1, 2048, 256, 1024, 1024, 1, 256, 1};
            case "gradW_hTg" -> new int[] {1, 1024, 256, 2048, 1, 1024, 256, 1};
            case "gradW_xTg" -> new int[] {1, 256, 1024, 2048, 1, 256, 1024, 1};
            case "proj_xWt" -> new int[] {1, 2048, 256, 256, 256, 1, 1, 256};
            case "gradXProj_gW" -> new int[] {1, 2048, 256, 256, 256, 1, 256, 1};
            case "gradWProj_gTx" -> new int[] {1, 256, 256, 2048, 1, 256, 256, 1};
            case "ffnUpBias_xWt" -> new int[] {1, 2048, 1024, 256, 256, 1, 1, 256};
            case "gradWSums_gTx" -> new int[] {1, 1024, 256, 2048, 1, 1024, 256, 1};
            case "qkv_xWt" -> new int[] {1, 2048, 768, 256, 256, 1, 1, 256};
            case "scores_qKt" -> new int[] {32, 256, 256, 64, 64, 1, 1, 64};
            case "context_pV" -> new int[] {32, 256, 64, 256, 256, 1, 64, 1};
            default -> throw new IllegalArgumentException("unknown shape " + shape);
        };
        batch = s[0]; m = s[1]; n = s[2]; k = s[3]; aRs = s[4]; aCs = s[5]; bRs = s[6]; bCs = s[7];
        gemm = Gemm.of(GemmPath.VECTOR);
        float[][] o = operands(batch, m, n, k);
        a = o[0]; b = o[1]; c = o[2]; epilogue = o[3];
    }

    /** A and B random in [-0.5, 0.5), C, and the bias (n) or row sums (m) of the epilogue. */
    static float[][] operands(int batch, int m, int n, int k) {
        Random rnd = new Random(42);
        float[] a = new float[batch * m * k], b = new float[batch * k * n];
        for (int i = 0; i < a.length; i++) a[i] = rnd.nextFloat() - 0.5f;
        for (int i = 0; i < b.length; i++) b[i] = rnd.nextFloat() - 0.5f;
        return new float[][] {a, b, new float[batch * m * n], new float[Math.max(m, n)]};
    }

    @Benchmark
    public float[] product() {
        if (shape.endsWith("Bias_xWt")) {
            gemm.sgemmBias(m, n, k, a, 0, aRs, aCs, b, 0, bRs, bCs, epilogue, 0, c, 0, n);
        } else if (shape.startsWith("gradWSums")) {
            gemm.sgemmRowSums(m, n, k, a, 0, aRs, aCs, b, 0, bRs, bCs, c, 0, n, epilogue, 0);
        } else if (batch == 1) {
            gemm.sgemm(m, n, k, a, 0, aRs, aCs, b, 0, bRs, bCs, c, 0, n);
        } else {
            gemm.sgemmBatched(batch, m, n, k, a, 0, m * k, aRs, aCs, b, 0, k * n, bRs, bCs, c, 0, m * n, n);
        }
        return c;
    }

    /**
     * The linear products of the main job's step (4096 rows, d 128, MLP 512), each through the
     * {@code Gemm} entry point and with the strides {@code CpuLinear} uses: the forward x·Wᵀ + b
     * ({@code sgemmBias}, W read transposed), the input gradient g·W ({@code sgemm}, W as
     * stored), the weight gradient gᵀ·x with the bias gradient ({@code sgemmRowSums}, g read
     * transposed: k = 4096 deep, m × n only 128…512 × 128…512). "qkv" is q, k and v's one
     * forward product (linear_split; its backward runs the "d" products once per part), "d" the
     * attention's output projection; fc is the MLP's up projection (128 → 512), mlp its down
     * projection (512 → 128).
     */
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @State(Scope.Benchmark)
    @Warmup(iterations = 3, time = 1)
    @Measurement(iterations = 5, time = 1)
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-XX:+UseG1GC"})
    public static class MainJob {
        /** name: m, n, k, A's row and column strides, B's; the entry point is in the name's suffix. */
        @Param({
                "qkv_xWt_bias",    // (4096,128)·(384,128)ᵀ + b
                "d_xWt_bias",      // (4096,128)·(128,128)ᵀ + b
                "fc_xWt_bias",     // (4096,128)·(512,128)ᵀ + b
                "mlp_hWt_bias",    // (4096,512)·(128,512)ᵀ + b
                "d_gW",            // (4096,128)·(128,128)
                "fc_gW",           // (4096,512)·(512,128)
                "mlp_gW",          // (4096,128)·(128,512)
                "d_gTx_sums",      // (4096,128)ᵀ·(4096,128), row sums of gᵀ
                "fc_gTx_sums",     // (4096,512)ᵀ·(4096,128)
                "mlp_gTh_sums"})   // (4096,128)ᵀ·(4096,512)
        public String job;

        private int m, n, k, aRs, aCs, bRs, bCs;
        private Gemm gemm;
        private float[] a, b, c, epilogue;

        @Setup
        public void setup() {
            int[] s = switch (job) {
                case "qkv_xWt_bias" -> new int[] {4096, 384, 128, 128, 1, 1, 128};
                case "d_xWt_bias" -> new int[] {4096, 128, 128, 128, 1, 1, 128};
                case "fc_xWt_bias" -> new int[] {4096, 512, 128, 128, 1, 1, 128};
                case "mlp_hWt_bias" -> new int[] {4096, 128, 512, 512, 1, 1, 512};
                case "d_gW" -> new int[] {4096, 128, 128, 128, 1, 128, 1};
                case "fc_gW" -> new int[] {4096, 128, 512, 512, 1, 128, 1};
                case "mlp_gW" -> new int[] {4096, 512, 128, 128, 1, 512, 1};
                case "d_gTx_sums" -> new int[] {128, 128, 4096, 1, 128, 128, 1};
                case "fc_gTx_sums" -> new int[] {512, 128, 4096, 1, 512, 128, 1};
                case "mlp_gTh_sums" -> new int[] {128, 512, 4096, 1, 128, 512, 1};
                default -> throw new IllegalArgumentException("unknown product " + job);
            };
            m = s[0]; n = s[1]; k = s[2]; aRs = s[3]; aCs = s[4]; bRs = s[5]; bCs = s[6];
            gemm = Gemm.of(GemmPath.VECTOR);
            float[][] o = operands(1, m, n, k);
            a = o[0]; b = o[1]; c = o[2]; epilogue = o[3];
        }

        @Benchmark
        public float[] product() {
            if (job.endsWith("_bias")) {
                gemm.sgemmBias(m, n, k, a, 0, aRs, aCs, b, 0, bRs, bCs, epilogue, 0, c, 0, n);
            } else if (job.endsWith("_sums")) {
                gemm.sgemmRowSums(m, n, k, a, 0, aRs, aCs, b, 0, bRs, bCs, c, 0, n, epilogue, 0);
            } else {
                gemm.sgemm(m, n, k, a, 0, aRs, aCs, b, 0, bRs, bCs, c, 0, n);
            }
            return c;
        }
    }
}
