package dev.symbiont.optim;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Module;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each optimizer trains small networks to a loss threshold with fixed seeds. */
class LearningTest {

    enum Kind {
        SGD_MOMENTUM, ADAM, ADAMW;

        Optimizer create(Module model) {
            return switch (this) {
                case SGD_MOMENTUM -> new SGD(model.namedParameters(), SGD.options(0.2).momentum(0.9));
                case ADAM -> new Adam(model.namedParameters(), Adam.options(0.03));
                case ADAMW -> new AdamW(ParamGroup.splitDecay(model, 0.01), AdamW.options(0.03));
            };
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void learnsXor(Kind kind) {
        TinyMlp mlp = new TinyMlp(2, 8, 2, 42);
        Tensor x = TinyMlp.xorInputs(), classes = TinyMlp.xorTargets();
        float loss = train(mlp, kind.create(mlp), 400, () -> mlp.forward(x).crossEntropy(classes));
        assertTrue(loss < 0.05, kind + ": XOR cross-entropy " + loss);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void fitsANonlinearRegression(Kind kind) {
        // y = tanh(3x) + 0.5x on 64 points of [-1, 1]: needs the hidden layer's bend.
        Generator gen = new Generator(3);
        Tensor x = Tensor.rand(gen, 64, 1).mul(2.0).sub(1.0);
        Tensor y = x.mul(3.0).tanh().add(x.mul(0.5));
        TinyMlp mlp = new TinyMlp(1, 16, 1, 5);
        float loss = train(mlp, kind.create(mlp), 600, () -> mlp.forward(x).mseLoss(y));
        assertTrue(loss < 0.005, kind + ": regression MSE " + loss);
    }

    /** Full-batch training; returns the loss of the last step. */
    static float train(Module model, Optimizer optimizer, int steps, Supplier<Tensor> lossFn) {
        float loss = Float.NaN;
        for (int step = 0; step < steps; step++) {
            optimizer.zeroGrad();
            Tensor l = lossFn.get();
            l.backward();
            loss = l.item();
            optimizer.step();
        }
        return loss;
    }
}
