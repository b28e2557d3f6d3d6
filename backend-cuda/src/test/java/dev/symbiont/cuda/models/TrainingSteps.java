package dev.symbiont.cuda.models;

import dev.symbiont.core.Tensor;
import dev.symbiont.optim.Optimizer;

import java.util.function.Supplier;

/** The training loop of the model tests: backward, step, zero the gradients; the losses in order. */
final class TrainingSteps {
    private TrainingSteps() {}

    static float[] losses(int steps, Optimizer opt, Supplier<Tensor> loss) {
        float[] out = new float[steps];
        for (int step = 0; step < steps; step++) {
            Tensor l = loss.get();
            l.backward();
            opt.step();
            opt.zeroGrad();
            out[step] = l.item();
        }
        return out;
    }
}
