package dev.symbiont.bench.torch;

import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorVector;

import java.util.ArrayList;
import java.util.List;

import static org.bytedeco.pytorch.global.torch.gelu;
import static org.bytedeco.pytorch.global.torch.layer_norm;
import static org.bytedeco.pytorch.global.torch.linear;
import static org.bytedeco.pytorch.global.torch.ones;
import static org.bytedeco.pytorch.global.torch.randn;
import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;
import static org.bytedeco.pytorch.global.torch.zeros;

/**
 * The nanoGPT-style block of benchmarks/gpt-block-torch.py in libtorch, op for op: pre-LayerNorm,
 * fused qkv with biases, {@code scaled_dot_product_attention(is_causal=True)} (libtorch's CPU
 * flash kernel), {@code linear}, exact {@code gelu}. Parameters are leaves that require grad.
 */
final class TorchGptBlock {
    private final int dModel, heads;
    private final Tensor norm1Weight, norm1Bias, qkvWeight, qkvBias, projWeight, projBias;
    private final Tensor norm2Weight, norm2Bias, fcWeight, fcBias, outWeight, outBias;
    private final List<Tensor> parameters = new ArrayList<>();

    TorchGptBlock(int dModel, int heads, int ffn) {
        this.dModel = dModel;
        this.heads = heads;
        norm1Weight = parameter(ones(dModel));
        norm1Bias = parameter(zeros(dModel));
        qkvWeight = parameter(scaled(randn(3L * dModel, dModel), dModel));
        qkvBias = parameter(zeros(3L * dModel));
        projWeight = parameter(scaled(randn(dModel, dModel), dModel));
        projBias = parameter(zeros(dModel));
        norm2Weight = parameter(ones(dModel));
        norm2Bias = parameter(zeros(dModel));
        fcWeight = parameter(scaled(randn(ffn, dModel), dModel));
        fcBias = parameter(zeros(ffn));
        outWeight = parameter(scaled(randn(dModel, ffn), ffn));
        outBias = parameter(zeros(dModel));
    }

    /** x (batch, seq, d_model) → (batch, seq, d_model). */
    Tensor forward(Tensor x, int batch, int seq) {
        Tensor x1 = x.add(attention(layerNorm(x, norm1Weight, norm1Bias), batch, seq));
        Tensor hidden = gelu(linear(layerNorm(x1, norm2Weight, norm2Bias), fcWeight, new TensorOptional(fcBias)));
        return x1.add(linear(hidden, outWeight, new TensorOptional(outBias)));
    }

    /** Sets every parameter's gradient to None, as {@code Module.zero_grad()} does. */
    void zeroGrad() {
        for (Tensor p : parameters) TorchTensors.clearGrad(p);
    }

    private Tensor attention(Tensor x, int batch, int seq) {
        TensorVector qkv = linear(x, qkvWeight, new TensorOptional(qkvBias)).split(dModel, 2);
        Tensor q = heads(qkv.get(0), batch, seq), k = heads(qkv.get(1), batch, seq), v = heads(qkv.get(2), batch, seq);
        Tensor y = scaled_dot_product_attention(q, k, v, new TensorOptional(), 0.0, true, new DoubleOptional(), false);
        return linear(y.transpose(1, 2).reshape(batch, seq, dModel), projWeight, new TensorOptional(projBias));
    }

    /** (batch, seq, d_model) → (batch, heads, seq, head_dim), a view. */
    private Tensor heads(Tensor z, int batch, int seq) {
        return z.view(batch, seq, heads, dModel / heads).transpose(1, 2);
    }

    private Tensor layerNorm(Tensor x, Tensor weight, Tensor bias) {
        return layer_norm(x, new long[] {dModel}, new TensorOptional(weight), new TensorOptional(bias), 1e-5, false);
    }

    private Tensor parameter(Tensor init) {
        Tensor p = TorchTensors.leaf(init);
        parameters.add(p);
        return p;
    }

    /** Uniform-ish scale 1/√fan_in, so activations stay O(1) as nn.Linear's init keeps them. */
    private static Tensor scaled(Tensor t, int fanIn) {
        return t.mul(new Scalar(1.0 / Math.sqrt(fanIn)));
    }
}
