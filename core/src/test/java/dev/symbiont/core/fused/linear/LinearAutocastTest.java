package dev.symbiont.core.fused.linear;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.Family;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Mixed precision reaches the linear family: under autocast its kernels get x and W in the low
 * dtype (the bias float32), return float32, and the op gives the values and gradients of the
 * matmul-and-add composition autocast ran before.
 */
class LinearAutocastTest {

    /** One kernel call: the op and the dtypes of x, W and a third operand (the bias or the output gradient; null if none). */
    record Call(String op, DType x, DType weight, DType third) {}

    /** The reference linear family recording every call's operand dtypes. */
    static final class DTypeRecordingLinear extends ReferenceLinear {
        final List<Call> calls = new ArrayList<>();

        private void record(String op, Tensor x, Tensor weight, Tensor third) {
            calls.add(new Call(op, x.dtype(), weight.dtype(), third == null ? null : third.dtype()));
        }

        @Override
        public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
            record("linear", x, weight, bias);
            return super.linear(x, weight, bias);
        }

        @Override
        public LinearGrads linearBackward(Tensor gradY, Tensor x, Tensor weight, boolean input, boolean weightGrad, boolean bias) {
            record("linear backward", x, weight, gradY);
            return super.linearBackward(gradY, x, weight, input, weightGrad, bias);
        }

        @Override
        public LinearGelu linearGelu(Tensor x, Tensor weight, Tensor bias, boolean keepDerivative) {
            record("linear_gelu", x, weight, bias);
            return super.linearGelu(x, weight, bias, keepDerivative);
        }

        @Override
        public LinearGrads linearSplitBackward(Tensor[] gradYs, int[] sizes, Tensor x, Tensor weight, boolean input,
                                               boolean weightGrad, boolean bias) {
            record("linear_split backward", x, weight, null);
            return super.linearSplitBackward(gradYs, sizes, x, weight, input, weightGrad, bias);
        }
    }

    /** A reference backend whose linear family records its calls. */
    static final class RecordingBackend extends ReferenceBackend {
        final DTypeRecordingLinear linear = new DTypeRecordingLinear();

        @Override public String name() { return "recording"; }

        @Override
        public <K> K fused(Family<K> family) {
            return family == LinearKernels.FAMILY ? family.contract().cast(linear) : null;
        }
    }

    private static final DType F32 = DType.FLOAT32;

    private final RecordingBackend backend = new RecordingBackend();

    /** The output's values, dtype-checked float32, then the gradients of x, W and b. */
    private List<float[]> run(DType low, Function<Tensor[], Tensor> f) {
        try (var scope = Backends.use(backend)) {
            Generator g = new Generator(21);
            Tensor[] in = {Tensor.randn(g, 3, 5, 24), Tensor.randn(g, 10, 24), Tensor.randn(g, 10)};
            for (Tensor t : in) t.requiresGrad(true);
            Tensor y;
            try (var amp = low == null ? Autocast.disable() : Autocast.enable(low)) {
                y = f.apply(in);
            }
            assertEquals(DType.FLOAT32, y.dtype(), "the result is float32");
            y.backward(Tensor.randn(g, y.shape()));
            List<float[]> out = new ArrayList<>(List.of(y.toFloatArray()));
            for (Tensor t : in) {
                if (t.grad() != null) assertEquals(DType.FLOAT32, t.grad().dtype(), "the float32 master gets a float32 gradient");
                out.add(t.grad() == null ? null : t.grad().toFloatArray());
            }
            return out;
        }
    }

    /** Products of 24 rounded terms summed in float32 in either order: the previous path's values, all but the last bits. */
    private static void assertClose(List<float[]> expected, List<float[]> actual, String what) {
        for (int i = 0; i < expected.size(); i++) {
            float[] e = expected.get(i), a = actual.get(i);
            assertEquals(e == null, a == null, what + ": result " + i + " exists in one run only");
            for (int j = 0; e != null && j < e.length; j++) {
                assertEquals(e[j], a[j], 1e-4 * Math.max(1, Math.abs(e[j])), what + ", result " + i + " at " + j);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void linearsKernelsGetLowPrecisionXAndWAndMatchAutocastsMatmulAndAdd(DType low) {
        List<float[]> fused = run(low, in -> Linears.linear(in[0], in[1], in[2]));
        assertEquals(List.of(new Call("linear", low, low, F32), new Call("linear backward", low, low, F32)), backend.linear.calls,
                "x and W reach the kernels in " + low + ", the bias and the output gradient in float32");
        List<float[]> before = run(low, in -> in[0].matmul(in[1].t()).add(in[2]));
        assertEquals(2, backend.linear.calls.size(), "the composition does not touch the family");
        assertClose(before, fused, "linear under autocast " + low);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void linearGeluAndLinearSplitKernelsGetLowPrecisionOperandsToo(DType low) {
        List<float[]> gelu = run(low, in -> Linears.linearGelu(in[0], in[1], in[2]));
        // the reference's linear_gelu is its linear and GELU; its backward, linear's backward
        assertEquals(List.of(new Call("linear_gelu", low, low, F32), new Call("linear", low, low, F32),
                new Call("linear backward", low, low, F32)), backend.linear.calls);
        assertClose(run(low, in -> in[0].matmul(in[1].t()).add(in[2]).gelu()), gelu, "linear_gelu under autocast " + low);
        backend.linear.calls.clear();
        List<float[]> split = run(low, in -> Tensor.cat(List.of(Linears.linearSplit(in[0], in[1], in[2], 6, 4)), -1));
        assertEquals(List.of(new Call("linear", low, low, F32), new Call("linear_split backward", low, low, null),
                new Call("linear backward", low, low, F32), new Call("linear backward", low, low, F32)), backend.linear.calls);
        assertClose(run(low, in -> in[0].matmul(in[1].t()).add(in[2])), split, "linear_split under autocast " + low);
    }

    @Test
    void linearSwigluUnderAutocastRunsBothProjectionsOnTheFamilyInLowPrecision() {
        DType low = DType.BFLOAT16;
        List<float[]> fused = run(low, in -> Linears.linearSwiglu(in[0], in[1], in[1].mul(0.5)));
        assertEquals(List.of(new Call("linear", low, low, null), new Call("linear", low, low, null),
                new Call("linear backward", low, low, F32), new Call("linear backward", low, low, F32)), backend.linear.calls);
        List<float[]> before = run(low, in -> in[0].matmul(in[1].t()).silu().mul(in[0].matmul(in[1].mul(0.5).t())));
        assertClose(before, fused, "linear_swiglu under autocast");
    }

    @Test
    void withoutAutocastTheKernelsGetFloat32() {
        run(null, in -> Linears.linear(in[0], in[1], in[2]));
        assertEquals(List.of(new Call("linear", F32, F32, F32), new Call("linear backward", F32, F32, F32)), backend.linear.calls);
    }
}
