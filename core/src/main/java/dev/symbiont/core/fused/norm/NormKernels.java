package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The norm family's contract: softmax, log_softmax, layer norm and RMS norm with their
 * backward rules. Inputs carry no autograd history ({@link Normalization} records the graph);
 * norms see 2-D (rows, cols) views, core having flattened the leading dims. Any strides.
 * {@link ReferenceNorm} is the reference, composed from primitives.
 */
public interface NormKernels {

    Family<NormKernels> FAMILY = new Family<>("norm", NormKernels.class, new ReferenceNorm());

    /** softmax along dim. */
    Tensor softmax(Tensor x, int dim);

    /** Gradient of softmax from its output y: y * (g - sum(g * y)). */
    Tensor softmaxBackward(Tensor y, Tensor gradY, int dim);

    /** log_softmax along dim. */
    Tensor logSoftmax(Tensor x, int dim);

    /** Gradient of log_softmax from its output y: g - exp(y) * sum(g). */
    Tensor logSoftmaxBackward(Tensor y, Tensor gradY, int dim);

    /**
     * Layer norm of each row of x (rows, cols); weight and bias (cols) may be null.
     * Returns the output and the per-row mean and 1/std (rows, 1) that backward needs.
     */
    NormResult layerNorm(Tensor x, Tensor weight, Tensor bias, double eps);

    /** Gradients of layer norm for x, weight and bias (null where the input was null). */
    NormGrads layerNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd);

    /** RMS norm of each row of x (rows, cols); weight (cols) may be null. The result's mean is null. */
    NormResult rmsNorm(Tensor x, Tensor weight, double eps);

    /** Gradients of RMS norm for x and weight. */
    NormGrads rmsNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor rstd);

    /** A norm's output with the statistics its backward reuses: mean and rstd are (rows, 1). */
    record NormResult(Tensor output, Tensor mean, Tensor rstd) {}

    /** Gradients of a norm's input, weight and bias; null for an absent parameter. */
    record NormGrads(Tensor input, Tensor weight, Tensor bias) {}
}
