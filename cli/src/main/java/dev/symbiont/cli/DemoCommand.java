package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.nn.Activation;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Sequential;
import dev.symbiont.optim.Adam;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.Locale;

/**
 * Trains a two-layer MLP to fit y = sin(3x) on [-1, 1] with full-batch Adam, printing the
 * loss as it falls: tensors, autograd and a backend end to end.
 */
@Command(name = "demo", description = "Train a tiny MLP on a synthetic regression and print its loss falling.")
final class DemoCommand implements Runnable {
    /** The demo runs in seconds; it has no time limit, so its steps and width have one. */
    static final int MAX_STEPS = 10_000, MAX_HIDDEN = 1024;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--steps", defaultValue = "600", description = "Training steps (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--hidden", defaultValue = "64", description = "Hidden units (default: ${DEFAULT-VALUE}).")
    int hidden;

    @Option(names = "--lr", defaultValue = "0.02", description = "Adam learning rate (default: ${DEFAULT-VALUE}).")
    double lr;

    @Override
    public void run() {
        new OptionChecks(spec).positive("--steps", steps, MAX_STEPS).positive("--hidden", hidden, MAX_HIDDEN).positive("--lr", lr);
        common.run("demo", this::train);
    }

    private void train(Backend backend) {
        Generator rng = new Generator(common.seed);
        int n = 256;
        Tensor x = Tensor.rand(rng, n, 1).mul(2.0).sub(1.0);
        Tensor y = sin3x(x);
        Sequential mlp = new Sequential(new Linear(1, hidden, true, rng), Activation.tanh(), new Linear(hidden, 1, true, rng));
        Adam adam = new Adam(mlp.namedParameters(), Adam.options(lr));

        System.out.printf(Locale.ROOT, "demo: fitting y = sin(3x) with a 1-%d-1 tanh MLP on the %s backend, %d steps%n",
                hidden, backend.device(), steps);
        float first = Float.NaN, last = Float.NaN;
        long start = System.nanoTime();
        for (int step = 1; step <= steps; step++) {
            Tensor loss = mlp.forward(x).mseLoss(y);
            loss.backward();
            last = loss.item();
            if (step == 1) first = last;
            if (step == 1 || step % 50 == 0) System.out.printf(Locale.ROOT, "step %4d  loss %.5f%n", step, last);
            adam.step();
            adam.zeroGrad();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "loss %.5f -> %.5f in %.2f s (%s)%n", first, last, seconds, backend.memory());
        if (!(last < first / 10)) {
            throw new IllegalStateException("the loss did not fall tenfold in --steps " + steps + " (" + first + " -> " + last
                    + "): give more --steps or another --lr");
        }
    }

    private static Tensor sin3x(Tensor x) {
        float[] v = x.toFloatArray();
        for (int i = 0; i < v.length; i++) v[i] = (float) Math.sin(3 * v[i]);
        return Tensor.fromArray(v, x.shape());
    }
}
