package dev.symbiont.bench;

import dev.symbiont.core.Half;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.MatVec;
import dev.symbiont.cpu.kernels.Parallel;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One row of x against a (out, in) weight matrix, the product of a decoding step: the
 * matrix–vector kernel on float32 and on bfloat16 weights, the GEMM on float32 (what a linear
 * layer ran before the kernel), and a plain parallel sum over the float32 weights, the
 * memory's ceiling for reading them once. GB/s = the weights' bytes ÷ the time.
 * {@code 768x2304} is GPT-2's fused qkv, {@code 768x50257} its tied head.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class MatVecBenchmark {

    /** in x out. */
    @Param({"768x2304", "768x3072", "3072x768", "768x50257"})
    public String shape;

    private int in, out;
    private float[] x, w32, y;
    private short[] w16;
    private final Gemm gemm = Gemm.fastest();
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    @Setup
    public void setUp() {
        String[] s = shape.split("x");
        in = Integer.parseInt(s[0]);
        out = Integer.parseInt(s[1]);
        SplittableRandom rng = new SplittableRandom(3);
        x = new float[in];
        for (int i = 0; i < in; i++) x[i] = (float) rng.nextGaussian();
        w32 = new float[in * out];
        w16 = new short[in * out];
        for (int i = 0; i < w32.length; i++) {
            w16[i] = Half.floatToBf16((float) rng.nextGaussian() * 0.02f);
            w32[i] = Half.bf16ToFloat(w16[i]);
        }
        y = new float[out];
    }

    @Benchmark
    public float[] matVecFloat32() {
        MatVec.forward(true, 1, out, in, x, 0, in, new MatVec.Weights(w32, 0, in), null, 0, y, out);
        return y;
    }

    @Benchmark
    public float[] matVecBfloat16() {
        MatVec.forward(true, 1, out, in, x, 0, in, new MatVec.Weights(w16, 0, in), null, 0, y, out);
        return y;
    }

    /** y = x·Wᵀ through the GEMM, W read through its strides (B(p, j) = W[j, p]). */
    @Benchmark
    public float[] gemmFloat32() {
        gemm.sgemm(1, out, in, x, 0, in, 1, w32, 0, 1, in, y, 0, out);
        return y;
    }

    /** The float32 weights summed once over the pool: the bandwidth ceiling. */
    @Benchmark
    public double readFloat32() {
        double[] parts = new double[64];
        Parallel.forChunks(out, 64, (c, from, to) -> {
            FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
            int i = from * in, end = to * in, step = F.length();
            for (; i + 4 * step <= end; i += 4 * step) {
                a0 = a0.add(FloatVector.fromArray(F, w32, i));
                a1 = a1.add(FloatVector.fromArray(F, w32, i + step));
                a2 = a2.add(FloatVector.fromArray(F, w32, i + 2 * step));
                a3 = a3.add(FloatVector.fromArray(F, w32, i + 3 * step));
            }
            float s = a0.add(a1).add(a2).add(a3).reduceLanes(VectorOperators.ADD);
            for (; i < end; i++) s += w32[i];
            parts[c] = s;
        });
        double total = 0;
        for (double p : parts) total += p;
        return total;
    }
}
