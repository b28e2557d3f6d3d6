package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

import java.util.List;

/** Layers applied in order; their parameters are named "0.weight", "1.bias", ... as in torch.nn.Sequential. */
public final class Sequential extends Layer {
    private final List<Layer> layers;

    public Sequential(Layer... layers) { this(List.of(layers)); }

    public Sequential(List<? extends Layer> layers) {
        this.layers = List.copyOf(layers);
        for (int i = 0; i < this.layers.size(); i++) module(Integer.toString(i), this.layers.get(i));
    }

    @Override
    public Tensor forward(Tensor x) {
        for (Layer layer : layers) x = layer.forward(x);
        return x;
    }

    public Layer get(int index) { return layers.get(index); }

    public int size() { return layers.size(); }
}
