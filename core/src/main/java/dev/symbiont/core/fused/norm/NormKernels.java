package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The norm family's contract: softmax, log_softmax, layer norm and RMS norm (each also fused with
 * the residual add before it), and the channel
 * norms of (N, C, *) tensors (batch norm, group norm, layer norm over C), with their backward rules. Inputs carry
 * no autograd history ({@link Normalization} and {@link ChannelNorms} record the graph); row
 * norms see 2-D (rows, cols) views, core having flattened the leading dims, and channel norms
 * see (N, C, L) views, core having flattened the spatial dims into L. Any strides.
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

    /**
     * Residual add and layer norm in one pass: s = x + residual and y = layer_norm(s), rows of
     * (rows, cols) each; weight and bias (cols) may be null. Returns s, y and s's per-row mean and
     * 1/std (rows, 1).
     */
    AddNormResult addLayerNorm(Tensor x, Tensor residual, Tensor weight, Tensor bias, double eps);

    /**
     * Gradients of {@link #addLayerNorm}: the input gradient is that of s, gradSum (the
     * gradient s receives from elsewhere, or null) plus layer norm's gradient from gradY; x and the
     * residual both receive it. Weight and bias gradients as {@link #layerNormBackward}.
     */
    NormGrads addLayerNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor bias, Tensor mean, Tensor rstd);

    /** RMS norm of each row of x (rows, cols); weight (cols) may be null. The result's mean is null. */
    NormResult rmsNorm(Tensor x, Tensor weight, double eps);

    /** Gradients of RMS norm for x and weight. */
    NormGrads rmsNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor rstd);

    /**
     * Residual add and RMS norm in one pass: s = x + residual and y = rms_norm(s), rows of
     * (rows, cols) each; weight (cols) may be null. Returns s, y and s's per-row 1/rms (rows, 1);
     * the result's mean is null.
     */
    AddNormResult addRmsNorm(Tensor x, Tensor residual, Tensor weight, double eps);

    /**
     * Gradients of {@link #addRmsNorm}: the input gradient is that of s, gradSum (or null) plus
     * RMS norm's gradient from gradY; x and the residual both receive it. The weight gradient as
     * {@link #rmsNormBackward}; the bias gradient is null.
     */
    NormGrads addRmsNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor rstd);

    /**
     * Batch norm in training mode of x (N, C, L): each channel normalised with the mean and
     * biased variance over its N·L values; weight and bias (C) may be null. Returns the output
     * (N, C, L) and the channel mean, biased variance and 1/√(var + eps), each (C).
     */
    BatchNormResult batchNorm(Tensor x, Tensor weight, Tensor bias, double eps);

    /** Batch norm with given statistics (eval mode): y = (x − mean[c])·rstd[c]·weight[c] + bias[c]; mean, rstd (C). */
    Tensor batchNormEval(Tensor x, Tensor mean, Tensor rstd, Tensor weight, Tensor bias);

    /**
     * Gradients of batch norm for x, weight and bias (null where the input was null). With
     * {@code training} the statistics were the batch's, so the input gradient goes through them;
     * otherwise the output was an affine map of x.
     */
    NormGrads batchNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd, boolean training);

    /**
     * Group norm of x (N, C, L) in {@code groups} groups of C / groups consecutive channels:
     * each (n, group) normalised over its (C / groups)·L values, then scaled and shifted per
     * channel by weight and bias (C, or null). mean and rstd of the result are (N, groups).
     */
    NormResult groupNorm(Tensor x, int groups, Tensor weight, Tensor bias, double eps);

    /** Gradients of group norm for x, weight and bias (null where the input was null). */
    NormGrads groupNormBackward(Tensor gradY, Tensor x, int groups, Tensor weight, Tensor bias, Tensor mean, Tensor rstd);

    /**
     * Layer norm over the channels of x (N, C, L) at every (n, l): ConvNeXt's LayerNorm2d on the
     * channels-first layout, each of the N·L columns of C values normalised, then scaled and
     * shifted per channel by weight and bias (C, or null). mean and rstd of the result are (N, L).
     */
    NormResult layerNorm2d(Tensor x, Tensor weight, Tensor bias, double eps);

    /** Gradients of {@link #layerNorm2d} for x, weight and bias (null where the input was null). */
    NormGrads layerNorm2dBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd);

    /** Batch norm's output and the channel statistics: mean, biased variance and rstd, each (C). */
    record BatchNormResult(Tensor output, Tensor mean, Tensor var, Tensor rstd) {}

    /** The residual sum s = x + r, its norm y, and s's per-row mean (null for RMS norm) and rstd (rows, 1). */
    record AddNormResult(Tensor sum, Tensor output, Tensor mean, Tensor rstd) {}

    /** A norm's output with the statistics its backward reuses: mean and rstd are (rows, 1) for row norms. */
    record NormResult(Tensor output, Tensor mean, Tensor rstd) {}

    /** Gradients of a norm's input, weight and bias; null for an absent parameter. */
    record NormGrads(Tensor input, Tensor weight, Tensor bias) {}
}
