package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CPU's whole-row scatter_add (an embedding's gradient) gives the reference's bits,
 * repeated ids included, and leaves every other pattern and every bad id to the reference.
 */
class CpuRowScatterTest {

    /** The same computation on the CPU and on the reference backend, from the same seed. */
    private static void assertSameBits(String what, Function<Generator, Tensor> computation) {
        float[] expected, actual;
        try (var use = Backends.use(new ReferenceBackend())) {
            expected = computation.apply(new Generator(7)).toFloatArray();
        }
        try (var use = Backends.use(new CpuBackend())) {
            actual = computation.apply(new Generator(7)).toFloatArray();
        }
        assertArrayEquals(expected, actual, what);
    }

    private static Tensor ids(Generator g, int n, int bound, DType dtype) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) v[i] = (long) Math.floor(Tensor.rand(g, 1).item() * bound);
        Tensor t = Tensor.fromArray(v, n);
        return dtype == DType.INT64 ? t : t.to(dtype);
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"INT32", "INT64"})
    void embeddingGradientEqualsTheReferenceToTheBit(DType dtype) {
        assertSameBits("embedding backward, " + dtype, g -> {
            Tensor weight = Tensor.randn(g, 13, 37).requiresGrad(true);
            Tensor picked = Tensor.embedding(weight, ids(g, 301, 13, dtype));
            picked.mul(Tensor.randn(g, 301, 37)).sum().backward();
            return weight.grad();
        });
    }

    @Test
    void stridedSourceAndBaseAndOtherPatternsEqualTheReference() {
        assertSameBits("rows of a transposed source into a narrowed base", g -> {
            Tensor base = Tensor.randn(g, 9, 20).narrow(1, 3, 11), src = Tensor.randn(g, 11, 40).t();
            Tensor index = ids(g, 40, 9, DType.INT64).reshape(40, 1).expand(40, 11);
            return base.scatterAdd(0, index, src);
        });
        assertSameBits("a general index along dim 1 (not rows)", g -> {
            Tensor index = ids(g, 24, 5, DType.INT64).reshape(6, 4);
            return Tensor.randn(g, 6, 5).scatterAdd(1, index, Tensor.randn(g, 6, 4));
        });
    }

    @Test
    void anIdOutOfRangeNamesTheOpAndThePosition() {
        try (var use = Backends.use(new CpuBackend())) {
            Tensor index = Tensor.fromArray(new long[] {0, 4, 2}, 3, 1).expand(3, 6);
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                    () -> Tensor.zeros(3, 6).scatterAdd(0, index, Tensor.ones(3, 6)));
            assertTrue(e.getMessage().contains("scatter") && e.getMessage().contains("index 4"), e.getMessage());
        }
    }
}
