package dev.symbiont.cuda;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.linear.ReferenceLinear;
import dev.symbiont.cuda.driver.KernelArgs;

/**
 * The linear family's forward on the backend's GEMM and one epilogue kernel ({@code linear.cu}):
 * x·Wᵀ through {@link CudaMatmul} (W's transpose is a view the GEMM reads as a transpose), then
 * the bias and, for linear_gelu, GELU and its derivative in one pass over the output, where the
 * reference makes a pass for the bias add, one for GELU and two for its derivative. The GEMM
 * itself stays the backend's (cuBLAS where it loads), so the epilogue is a second launch rather
 * than code inside the GEMM's tiles. The backward is the reference's: its GEMMs are the same
 * calls, and the bias gradient a column sum.
 *
 * <p>Operands that are not float32 (autocast's bfloat16 and float16) or empty run the
 * reference, counted by {@link dev.symbiont.core.fused.Fallbacks}.
 */
final class CudaLinearKernels extends ReferenceLinear {
    private final FusedOperands io;

    CudaLinearKernels(CudaBackend backend) { this.io = new FusedOperands(backend); }

    @Override
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        if (!FusedOperands.nonEmptyFloats("linear", x, weight, bias) || bias == null) return super.linear(x, weight, bias);
        return epilogue(x, weight, bias, false, false).output();
    }

    @Override
    public LinearGelu linearGelu(Tensor x, Tensor weight, Tensor bias, boolean keepDerivative) {
        if (!FusedOperands.nonEmptyFloats("linear_gelu", x, weight, bias)) return super.linearGelu(x, weight, bias, keepDerivative);
        return epilogue(x, weight, bias, true, keepDerivative);
    }

    /** x (rows, in)·Wᵀ on the GEMM, then the bias and (with gelu) GELU and GELU′ in place: (rows, out) each. */
    private LinearGelu epilogue(Tensor x, Tensor weight, Tensor bias, boolean gelu, boolean keepDerivative) {
        io.backend().enter();
        Tensor y = x.matmul(weight.transpose(0, 1)).contiguous(), b = FusedOperands.dense(bias);
        Tensor derivative = keepDerivative ? io.empty(y.shape()) : null;
        io.backend().kernels().launch("linear", "linear_epilogue_f32", y.numel(), KernelArgs.of().pointer(FusedOperands.address(y))
                .pointer(FusedOperands.address(derivative)).pointer(FusedOperands.address(b)).i64(y.numel()).i32(y.size(1))
                .i32(gelu ? 1 : 0));
        return new LinearGelu(y, derivative);
    }

    @Override
    public String toString() { return "CudaLinearKernels"; }
}
