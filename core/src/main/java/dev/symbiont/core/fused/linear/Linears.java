package dev.symbiont.core.fused.linear;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.profile.OpCategory;

import java.util.Arrays;

/**
 * {@code linear(x, weight, bias)} (torch's {@code F.linear}): checks, then the linear family's
 * kernels through {@link FusedOp}. The FLOP estimate is the GEMM's 2·rows·out·in plus one add
 * per output for the bias, the work of the matmul and add it replaces.
 */
public final class Linears {
    private Linears() {}

    private static final FusedOp<LinearKernels> LINEAR = FusedOp.of(LinearKernels.FAMILY, "linear", OpCategory.MATMUL);

    /**
     * x: (..., in), weight: (out, in), bias: (out) or null → (..., out) = x·Wᵀ + b.
     * Under autocast the product runs as autocast's matmul (low-precision operands) plus the
     * add, since the fused kernels compute in float32.
     */
    public static Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        Checks.float32("linear", x, weight, bias);
        Checks.sameBackend("linear", x, weight, bias);
        if (x.dim() == 0 || weight.dim() != 2 || x.size(-1) != weight.size(1)
                || (bias != null && (bias.dim() != 1 || bias.size(0) != weight.size(0)))) {
            throw new IllegalArgumentException("linear: input " + Arrays.toString(x.shape()) + ", weight "
                    + Arrays.toString(weight.shape()) + " and bias " + (bias == null ? "none" : Arrays.toString(bias.shape()))
                    + " do not fit: need input (..., in), weight (out, in), bias (out)");
        }
        if (Autocast.lowPrecision() != null) {
            Tensor y = x.matmul(weight.t());
            return bias == null ? y : y.add(bias);
        }
        int in = weight.size(1), out = weight.size(0), rows = x.numel() / Math.max(in, 1);
        int[] outShape = x.shape();
        outShape[outShape.length - 1] = out;
        Tensor x2 = x.detach().reshape(rows, in), w = weight.detach(), b = bias == null ? null : bias.detach();
        boolean[] needs = {x.requiresGrad(), weight.requiresGrad(), bias != null && bias.requiresGrad()};
        long flops = 2L * rows * out * in + (bias == null ? 0 : (long) rows * out);
        return LINEAR.run(x.backend(), flops, FusedOp.bytes(x, weight, bias) + 4L * rows * out,
                k -> new FusedOp.Result<>(k.linear(x2, w, b).reshape(outShape), x2),
                (k, saved, g) -> {
                    LinearKernels.LinearGrads gr = k.linearBackward(g.reshape(rows, out), saved, w, needs[0], needs[1], needs[2]);
                    return new Tensor[] {gr.input() == null ? null : gr.input().reshape(x.shape()), gr.weight(), gr.bias()};
                },
                x, weight, bias);
    }
}
