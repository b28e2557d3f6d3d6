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
            "proj_xWt",        // (2048,256)·(256,256)ᵀ: q, k, v (forwardRows) and the output projection
            "gradXProj_gW",    // (2048,256)·(256,256)
            "gradWProj_gTx",   // (2048,256)ᵀ·(2048,256)
            "ffnUpBias_xWt",   // ffnUp with the bias in the epilogue (linear's forward)
            "gradWSums_gTx",   // gradW_hTg with the bias gradient's row sums (linear's backward)
            "qkv_xWt",         // (2048,256)·(768,256)ᵀ
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
        Random rnd = new Random(42);
        a = new float[batch * m * k];
        b = new float[batch * k * n];
        c = new float[batch * m * n];
        epilogue = new float[Math.max(m, n)]; // the bias (n) or the row sums (m)
        for (int i = 0; i < a.length; i++) a[i] = rnd.nextFloat() - 0.5f;
        for (int i = 0; i < b.length; i++) b[i] = rnd.nextFloat() - 0.5f;
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
}
