package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Module;
import dev.symbiont.optim.AdamW;

/**
 * One training step of a model on a fixed random batch: zero the gradients, forward, loss (plus
 * an MoE model's auxiliary loss), backward, AdamW update — what a trainer repeats, so its time
 * and its peak memory are the step's.
 */
public final class TrainingStep implements Runnable {
    private final Module model;
    private final AdamW optimizer;
    private final java.util.function.Supplier<Tensor> loss;

    private TrainingStep(Module model, java.util.function.Supplier<Tensor> loss) {
        this.model = model;
        this.optimizer = new AdamW(model.namedParameters(), AdamW.options(1e-3));
        this.loss = loss;
        model.train();
    }

    /** A language model's step on (batch, seq) random tokens and next-token targets. */
    public static TrainingStep of(CausalLM model, int batch, int seq, Generator g) {
        Tensor ids = tokens(g, batch, seq, model.vocab()), targets = tokens(g, batch, seq, model.vocab());
        return new TrainingStep(model, () -> {
            Tensor l = model.loss(ids, targets);
            Tensor aux = model.auxiliaryLoss();
            return aux == null ? l : l.add(aux);
        });
    }

    /** An image classifier's step on (batch, channels, side, side) random images and labels. */
    public static TrainingStep of(ImageClassifier model, int batch, int side, Generator g) {
        Tensor images = Tensor.randn(g, batch, model.inChannels(), side, side);
        Tensor labels = tokens(g, batch, 1, model.numClasses()).reshape(batch);
        return new TrainingStep(model, () -> Losses.crossEntropy(model.forward(images), labels));
    }

    public Module model() { return model; }

    @Override
    public void run() {
        optimizer.zeroGrad();
        loss.get().backward();
        optimizer.step();
    }

    /** (rows, cols) ids drawn uniformly from [0, bound). */
    static Tensor tokens(Generator g, int rows, int cols, int bound) {
        long[] ids = new long[rows * cols];
        for (int i = 0; i < ids.length; i++) ids[i] = g.nextInt(bound);
        return Tensor.fromArray(ids, rows, cols);
    }
}
