package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

import java.util.function.UnaryOperator;

/** An element-wise nonlinearity as a layer (torch.nn.ReLU, GELU, ...); no parameters. */
public final class Activation extends Layer {
    private final String name;
    private final UnaryOperator<Tensor> fn;

    private Activation(String name, UnaryOperator<Tensor> fn) {
        this.name = name;
        this.fn = fn;
    }

    public static Activation relu() { return new Activation("ReLU", Tensor::relu); }
    /** GELU with the exact erf form (PyTorch's default). */
    public static Activation gelu() { return new Activation("GELU", Tensor::gelu); }
    /** GELU with the tanh approximation (GPT-2's). */
    public static Activation geluTanh() { return new Activation("GELU(tanh)", Tensor::geluTanh); }
    public static Activation tanh() { return new Activation("Tanh", Tensor::tanh); }
    public static Activation sigmoid() { return new Activation("Sigmoid", Tensor::sigmoid); }
    public static Activation silu() { return new Activation("SiLU", Tensor::silu); }

    /** x: any shape → same shape. */
    @Override
    public Tensor forward(Tensor x) { return fn.apply(x); }

    @Override
    protected String extraRepr() { return name; }
}
