package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.memory.MemoryMeasure;
import dev.symbiont.core.memory.MemoryTracker;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cpu.gemm.GemmPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The tiled FlashAttention forward and backward against the materialised reference
 * (the attention family's reference), with the Vector API on and on the scalar twin:
 * output, logsumexp and all three gradients within 1e-4, over causal and not, lengths that are
 * not multiples of the block, sq ≠ sk, head_dim 32/64/128, grouped-query heads, masks and
 * non-contiguous inputs. And the point of it all: peak memory.
 */
class CpuAttentionTest {
    private static final double MAX_ABS_ERROR = 1e-4;
    private static final ReferenceBackend REF = new ReferenceBackend();
    private static final CpuBackend VECTOR = new CpuBackend(GemmPath.VECTOR, true);
    private static final CpuBackend SCALAR = new CpuBackend(GemmPath.EJML, false);

    /** How a case's q, k, v (and the output gradient) are laid out. */
    private enum Inputs {
        /** (batch, heads, seq, d) tensors of their own. */
        CONTIGUOUS,
        /** q, k from (batch, seq, heads, d) projections seen as (batch, heads, seq, d); v with d strided. */
        TRANSPOSED,
        /** What {@code splitHeads} makes: (batch, seq, heads·d) projections reshaped and transposed. */
        SPLIT_HEADS,
        /** Contiguous, rounded to bfloat16: the kernel widens them, the reference computes on the same values. */
        BF16
    }

    /** What a case feeds the kernel: data made on a backend, so both sides see the same values and layouts. */
    private record Case(String name, int batch, int heads, int kvHeads, int sq, int sk, int d, boolean causal,
                        Function<Backend, Tensor> mask, Inputs inputs) {}

    private static Case plain(int heads, int kvHeads, int sq, int sk, int d, boolean causal) {
        return new Case("h" + heads + "/" + kvHeads + " sq" + sq + " sk" + sk + " d" + d + (causal ? " causal" : ""),
                2, heads, kvHeads, sq, sk, d, causal, null, Inputs.CONTIGUOUS);
    }

    /** (batch, n, seq, d) as a head split of a (batch, seq, n·d) projection. */
    private static Tensor splitHeads(Generator g, int batch, int seq, int n, int d) {
        return Tensor.randn(g, batch, seq, n * d).reshape(batch, seq, n, d).transpose(1, 2);
    }

    /** The inputs of a case on backend {@code be}: q, k, v, gradOut, mask (or null). */
    private static Tensor[] inputs(Case c, Backend be) {
        try (var scope = Backends.use(be)) {
            Generator g = new Generator(c.sq() * 31L + c.sk() * 7L + c.d());
            Tensor q, k, v, gradOut;
            switch (c.inputs()) {
                case TRANSPOSED -> {
                    q = Tensor.randn(g, c.batch(), c.sq(), c.heads(), c.d()).transpose(1, 2);
                    k = Tensor.randn(g, c.batch(), c.sk(), c.kvHeads(), c.d()).transpose(1, 2);
                    v = Tensor.randn(g, c.batch(), c.kvHeads(), c.d(), c.sk()).transpose(2, 3);
                    gradOut = Tensor.randn(g, c.batch(), c.sq(), c.heads(), c.d()).transpose(1, 2);
                }
                case SPLIT_HEADS -> {
                    q = splitHeads(g, c.batch(), c.sq(), c.heads(), c.d());
                    k = splitHeads(g, c.batch(), c.sk(), c.kvHeads(), c.d());
                    v = splitHeads(g, c.batch(), c.sk(), c.kvHeads(), c.d());
                    gradOut = splitHeads(g, c.batch(), c.sq(), c.heads(), c.d());
                }
                default -> {
                    q = Tensor.randn(g, c.batch(), c.heads(), c.sq(), c.d());
                    k = Tensor.randn(g, c.batch(), c.kvHeads(), c.sk(), c.d());
                    v = Tensor.randn(g, c.batch(), c.kvHeads(), c.sk(), c.d());
                    gradOut = Tensor.randn(g, c.batch(), c.heads(), c.sq(), c.d());
                }
            }
            if (c.inputs() == Inputs.BF16) {
                q = q.to(DType.BFLOAT16);
                k = k.to(DType.BFLOAT16);
                v = v.to(DType.BFLOAT16);
            }
            Tensor mask = c.mask() == null ? null : c.mask().apply(be);
            if (mask != null) mask = mask.detach();
            return new Tensor[] {q, k, v, gradOut, mask};
        }
    }

    /** Output, logsumexp, dq, dk, dv of the fused ops on {@code be}. */
    private static float[][] run(Case c, Backend be) {
        Tensor[] in = inputs(c, be);
        Tensor q = in[0], k = in[1], v = in[2], gradOut = in[3], mask = in[4];
        Tensor expanded = mask == null ? null : mask.expand(c.batch(), c.heads(), c.sq(), c.sk());
        double scale = 1 / Math.sqrt(c.d());
        AttentionKernels.AttentionResult r = Differential.attention(be).attention(q, k, v, expanded, c.causal(), scale);
        AttentionKernels.AttentionGrads gr = Differential.attention(be).attentionBackward(gradOut, q, k, v, expanded, c.causal(), scale, r.output(), r.logsumexp());
        assertArrayEquals(q.shape(), r.output().shape(), c.name() + ": output shape");
        assertArrayEquals(k.shape(), gr.dk().shape(), c.name() + ": dk shape");
        for (Tensor t : new Tensor[] {r.output(), gr.dq(), gr.dk(), gr.dv()}) {
            assertEquals(DType.FLOAT32, t.dtype(), c.name() + ": results are float32");
            if (be instanceof CpuBackend && c.inputs() == Inputs.SPLIT_HEADS) {
                assertTrue(t.transpose(1, 2).isContiguous(), c.name() + ": written in the projection's (batch, seq, heads, d) order");
            } else if (be instanceof CpuBackend && c.inputs() != Inputs.TRANSPOSED) {
                assertTrue(t.isContiguous(), c.name() + ": contiguous inputs give contiguous results");
            }
        }
        return new float[][] {r.output().toFloatArray(), r.logsumexp().toFloatArray(),
                gr.dq().toFloatArray(), gr.dk().toFloatArray(), gr.dv().toFloatArray()};
    }

    private static void assertFlashMatchesReference(Case c) {
        float[][] expected = run(c, REF);
        for (CpuBackend cpu : new CpuBackend[] {VECTOR, SCALAR}) {
            float[][] actual = run(c, cpu);
            String[] parts = {"output", "logsumexp", "dq", "dk", "dv"};
            for (int p = 0; p < parts.length; p++) {
                assertClose(c.name() + " on " + cpu + ": " + parts[p], expected[p], actual[p]);
            }
        }
    }

    private static void assertClose(String what, float[] expected, float[] actual) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            float e = expected[i], a = actual[i];
            if (Float.isInfinite(e) ? e != a : !(Math.abs(e - a) <= MAX_ABS_ERROR)) {
                fail(what + ": element " + i + " is " + a + ", reference " + e);
            }
        }
    }

    // ---- shapes ----------------------------------------------------------------------------------

    @ParameterizedTest(name = "sq {0}, sk {1}, causal {2}")
    @CsvSource({
            "64, 64, false", "64, 64, true",
            "100, 100, false", "100, 100, true",      // not a multiple of the block
            "37, 150, false", "37, 150, true",        // fewer queries than keys: bottom-right causal
            "150, 37, true",                          // more queries: the first 113 rows see no key
            "1, 200, true", "200, 1, false",          // a decode step; a single key
            "129, 65, false"})
    void flashMatchesReferenceOnOddAndUnequalLengths(int sq, int sk, boolean causal) {
        assertFlashMatchesReference(plain(2, 2, sq, sk, 32, causal));
    }

    @ParameterizedTest(name = "head_dim {0}")
    @ValueSource(ints = {32, 64, 128, 40, 1})
    void flashMatchesReferenceForEveryHeadDim(int d) {
        assertFlashMatchesReference(plain(2, 2, 70, 90, d, true));
        assertFlashMatchesReference(plain(2, 2, 70, 90, d, false));
    }

    @ParameterizedTest(name = "heads {0}/{1}")
    @CsvSource({"4, 2", "4, 1", "6, 3"})
    void flashMatchesReferenceWithGroupedQueryHeads(int heads, int kvHeads) {
        assertFlashMatchesReference(plain(heads, kvHeads, 80, 130, 32, true));
        assertFlashMatchesReference(plain(heads, kvHeads, 80, 130, 32, false));
    }

    @Test
    void flashSplitsTheKeysOfASingleKvHeadAcrossTasksWithoutLosingGradient() {
        // batch 1, one kv head, 4 key blocks: the backward deals key blocks to several tasks with partial dQ
        Case c = new Case("single kv head", 1, 3, 1, 200, 256, 32, true, null, Inputs.CONTIGUOUS);
        assertFlashMatchesReference(c);
        assertFlashMatchesReference(new Case("single kv head, not causal", 1, 1, 1, 65, 300, 64, false, null, Inputs.CONTIGUOUS));
    }

    // ---- masks and layouts -----------------------------------------------------------------------

    @ParameterizedTest(name = "causal {0}")
    @ValueSource(booleans = {false, true})
    void flashMatchesReferenceWithAdditiveAndKeyPaddingMasks(boolean causal) {
        assertFlashMatchesReference(new Case("additive bias", 2, 4, 2, 70, 100, 32, causal,
                be -> Tensor.randn(new Generator(3), 2, 4, 70, 100), Inputs.CONTIGUOUS));
        assertFlashMatchesReference(new Case("2-D bias", 2, 2, 2, 70, 100, 32, causal,
                be -> Tensor.randn(new Generator(4), 70, 100), Inputs.CONTIGUOUS));
        assertFlashMatchesReference(new Case("key padding", 2, 4, 2, 70, 100, 32, causal, be -> {
            float[] m = new float[2 * 100];
            for (int j = 80; j < 100; j++) m[j] = Float.NEGATIVE_INFINITY;  // batch 0: last 20 keys padded
            for (int j = 0; j < 100; j++) m[100 + j] = Float.NEGATIVE_INFINITY; // batch 1: every key padded
            return Tensor.fromArray(m, 2, 1, 1, 100);
        }, Inputs.CONTIGUOUS));
    }

    @ParameterizedTest(name = "causal {0}")
    @ValueSource(booleans = {false, true})
    void flashMatchesReferenceOnNonContiguousInputs(boolean causal) {
        assertFlashMatchesReference(new Case("transposed projections", 2, 4, 2, 70, 90, 32, causal, null, Inputs.TRANSPOSED));
        assertFlashMatchesReference(new Case("transposed with mask", 2, 2, 2, 65, 65, 64, causal,
                be -> Tensor.randn(new Generator(5), 2, 1, 65, 65), Inputs.TRANSPOSED));
    }

    @ParameterizedTest(name = "causal {0}")
    @ValueSource(booleans = {false, true})
    void onSplitHeadViewsFlashReadsInPlaceAndWritesResultsInTheProjectionsOrder(boolean causal) {
        assertFlashMatchesReference(new Case("split heads", 2, 4, 4, 70, 70, 32, causal, null, Inputs.SPLIT_HEADS));
        assertFlashMatchesReference(new Case("split heads, grouped kv", 2, 6, 2, 65, 130, 16, causal, null, Inputs.SPLIT_HEADS));
        assertFlashMatchesReference(new Case("split heads, decode step", 2, 4, 2, 1, 90, 32, causal, null, Inputs.SPLIT_HEADS));
        // four query and key blocks: v and dO are packed once per call, dQ gathered in its own rows, then in parts
        assertFlashMatchesReference(new Case("split heads, packed", 2, 4, 2, 200, 200, 32, causal, null, Inputs.SPLIT_HEADS));
        assertFlashMatchesReference(new Case("split heads, packed, dQ in parts", 1, 2, 1, 200, 260, 16, causal, null, Inputs.SPLIT_HEADS));
        assertFlashMatchesReference(new Case("split heads, key padding", 2, 4, 2, 70, 70, 32, causal, be -> {
            float[] m = new float[2 * 70];
            for (int j = 50; j < 70; j++) m[70 + j] = Float.NEGATIVE_INFINITY;  // batch 1: last 20 keys padded
            return Tensor.fromArray(m, 2, 1, 1, 70);
        }, Inputs.SPLIT_HEADS));
    }

    @ParameterizedTest(name = "causal {0}")
    @ValueSource(booleans = {false, true})
    void bf16InputsGiveFloat32AttentionOfTheRoundedValues(boolean causal) {
        assertFlashMatchesReference(new Case("bf16", 2, 4, 2, 70, 90, 32, causal, null, Inputs.BF16));
        assertFlashMatchesReference(new Case("bf16 with bias", 2, 2, 2, 65, 65, 64, causal,
                be -> Tensor.randn(new Generator(6), 2, 1, 65, 65), Inputs.BF16));
    }

    @Test
    void throughAutogradTheCpuBackendGivesTheReferenceGradients() {
        Case c = plain(4, 2, 33, 47, 16, true);
        float[][] expected = autograd(c, REF), actual = autograd(c, VECTOR);
        for (int p = 0; p < expected.length; p++) assertClose("autograd part " + p, expected[p], actual[p]);
    }

    @Test
    void gradientsThroughSplitHeadViewsOnTheCpuMatchFiniteDifferences() {
        Generator gen = new Generator(13);
        GradCheck.check("sdpa split heads on " + VECTOR, VECTOR, in -> Tensor.scaledDotProductAttention(
                        in.get(0).reshape(1, 3, 4, 2).transpose(1, 2), in.get(1).reshape(1, 5, 2, 2).transpose(1, 2),
                        in.get(2).reshape(1, 5, 2, 2).transpose(1, 2), null, true).transpose(1, 2).reshape(1, 3, 8),
                GradCheck.randn(gen, 1, 1, 3, 8), GradCheck.randn(gen, 1, 1, 5, 4), GradCheck.randn(gen, 1, 1, 5, 4));
    }

    private static float[][] autograd(Case c, Backend be) {
        try (var scope = Backends.use(be)) {
            Tensor[] in = inputs(c, be);
            Tensor q = in[0].requiresGrad(true), k = in[1].requiresGrad(true), v = in[2].requiresGrad(true);
            Tensor out = Tensor.scaledDotProductAttention(q, k, v, null, c.causal());
            out.backward(in[3].contiguous());
            return new float[][] {out.toFloatArray(), q.grad().toFloatArray(), k.grad().toFloatArray(), v.grad().toFloatArray()};
        }
    }

    // ---- bf16 autocast ----------------------------------------------------------------------------

    @Test
    void underBf16AutocastTheGradientsAreFloat32AttentionsOnTheRoundedInputs() {
        try (var scope = Backends.use(VECTOR)) {
            Generator g = new Generator(10);
            Tensor q = Tensor.randn(g, 2, 4, 40, 16), k = Tensor.randn(g, 2, 2, 40, 16), v = Tensor.randn(g, 2, 2, 40, 16);
            Tensor gradOut = Tensor.randn(g, 2, 4, 40, 16);
            float[][] autocast;
            try (var amp = Autocast.enable(DType.BFLOAT16)) {
                autocast = attentionAndGradients(q, k, v, gradOut);
            }
            float[][] rounded = attentionAndGradients(q.to(DType.BFLOAT16).to(DType.FLOAT32),
                    k.to(DType.BFLOAT16).to(DType.FLOAT32), v.to(DType.BFLOAT16).to(DType.FLOAT32), gradOut);
            float[][] exact = attentionAndGradients(q, k, v, gradOut);
            String[] parts = {"output", "dq", "dk", "dv"};
            for (int p = 0; p < parts.length; p++) {
                assertClose("autocast vs float32 on the rounded inputs: " + parts[p], rounded[p], autocast[p]);
                // bf16 keeps 8 bits of mantissa: inputs off by up to 2^-9 relative
                assertCloseWithin("autocast vs float32: " + parts[p], exact[p], autocast[p], 3e-2);
            }
        }
    }

    /** Output and float32 gradients of causal attention of fresh leaves holding the given values. */
    private static float[][] attentionAndGradients(Tensor q, Tensor k, Tensor v, Tensor gradOut) {
        Tensor ql = q.detach().requiresGrad(true), kl = k.detach().requiresGrad(true), vl = v.detach().requiresGrad(true);
        Tensor out = Tensor.scaledDotProductAttention(ql, kl, vl, null, true);
        assertEquals(DType.FLOAT32, out.dtype(), "attention's output is float32");
        out.backward(gradOut);
        assertEquals(DType.FLOAT32, ql.grad().dtype(), "a float32 leaf gets a float32 gradient");
        return new float[][] {out.toFloatArray(), ql.grad().toFloatArray(), kl.grad().toFloatArray(), vl.grad().toFloatArray()};
    }

    private static void assertCloseWithin(String what, float[] expected, float[] actual, double tolerance) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (!(Math.abs(expected[i] - actual[i]) <= tolerance * (1 + Math.abs(expected[i])))) {
                fail(what + ": element " + i + " is " + actual[i] + ", float32 " + expected[i]);
            }
        }
    }

    /**
     * What attention keeps for backward is q, k and v: under bf16 autocast those are the bf16
     * casts, so a forward whose inputs nothing else keeps (a projection's output, here a bias
     * add, which saves no tensor) retains 3·n·2 bytes less. Counted with the backend's exact accounting.
     */
    @Test
    void underBf16AutocastAttentionKeepsHalfTheBytesOfQKAndV() {
        CpuBackend cpu = new CpuBackend();
        try (var scope = Backends.use(cpu)) {
            Generator g = new Generator(12);
            int[] shape = {1, 4, 256, 32};
            Tensor q = Tensor.randn(g, shape).requiresGrad(true), k = Tensor.randn(g, shape).requiresGrad(true);
            Tensor v = Tensor.randn(g, shape).requiresGrad(true);
            Supplier<Tensor> forward = () -> Tensor.scaledDotProductAttention(q.add(1), k.add(1), v.add(1), null, true);
            long f32 = MemoryMeasure.retainedBy(cpu, forward);
            long bf16;
            try (var amp = Autocast.enable(DType.BFLOAT16)) {
                bf16 = MemoryMeasure.retainedBy(cpu, forward);
            }
            long saved = 3L * q.numel() * 2;
            assertTrue(Math.abs(f32 - bf16 - saved) <= saved / 20,
                    "float32 keeps " + f32 + " B, bf16 " + bf16 + " B: expected " + saved + " B less");
        }
    }

    // ---- memory ----------------------------------------------------------------------------------

    /**
     * seq 2048, batch 1, 8 heads, head_dim 64: each score-sized tensor is 8·2048²·4 B = 128 MiB.
     * (The benchmark report runs seq 4096, where the reference needs 512 MiB per score tensor.)
     */
    @Test
    void flashForwardAndBackwardPeakUnderAnEighthOfTheReference() {
        CpuBackend cpu = new CpuBackend();
        long reference;
        try (var materialised = FusedKernels.forceReference(AttentionKernels.FAMILY)) {
            reference = peakBytes(cpu, 2048); // same GEMM and softmax: only attention differs
        }
        long flash = peakBytes(cpu, 2048);
        assertTrue(reference >= 2L * 8 * 2048 * 2048 * 4, "the reference holds at least two score tensors: " + reference);
        assertTrue(flash * 8 < reference, "flash peak " + flash + " B vs reference " + reference + " B");
    }

    /** Peak bytes of one forward + backward, inputs and gradients included, counted exactly. */
    static long peakBytes(Backend be, int seq) {
        try (var scope = Backends.use(be); var exact = MemoryTracker.exactPeaks()) {
            Generator g = new Generator(1);
            Tensor q = Tensor.randn(g, 1, 8, seq, 64).requiresGrad(true);
            Tensor k = Tensor.randn(g, 1, 8, seq, 64).requiresGrad(true);
            Tensor v = Tensor.randn(g, 1, 8, seq, 64).requiresGrad(true);
            Tensor gradOut = Tensor.randn(g, 1, 8, seq, 64);
            be.resetPeakMemory();
            Tensor out = Tensor.scaledDotProductAttention(q, k, v, null, true);
            out.backward(gradOut);
            return be.memory().peakBytes();
        }
    }
}
