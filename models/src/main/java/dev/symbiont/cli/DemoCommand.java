package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Locale;

/**
 * Trains a two-layer MLP to fit y = sin(3x) on [-1, 1] with full-batch Adam, printing the
 * loss as it falls: tensors, autograd and a backend end to end.
 */
@Command(name = "demo", description = "Train a tiny MLP on a synthetic regression and print its loss falling.")
final class DemoCommand implements Runnable {
    @Option(names = "--backend", description = "Backend name (default: the fastest available).")
    String backendName;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--steps", defaultValue = "600", description = "Training steps (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--hidden", defaultValue = "64", description = "Hidden units (default: ${DEFAULT-VALUE}).")
    int hidden;

    @Option(names = "--lr", defaultValue = "0.02", description = "Adam learning rate (default: ${DEFAULT-VALUE}).")
    double lr;

    @Override
    public void run() {
        Backend backend = backendName == null ? Backends.defaultBackend() : Backends.get(backendName);
        try (var scope = Backends.use(backend)) {
            train(backend);
        }
    }

    private void train(Backend backend) {
        Generator rng = new Generator(seed);
        int n = 256;
        Tensor x = Tensor.rand(rng, n, 1).mul(2.0).sub(1.0);
        Tensor y = sin3x(x);

        // Uniform initialisation scaled by fan-in, as PyTorch's Linear does.
        Tensor[] params = {
                Tensor.rand(rng, 1, hidden).mul(2.0).sub(1.0),
                Tensor.zeros(hidden),
                Tensor.rand(rng, hidden, 1).mul(2.0).sub(1.0).mul(1.0 / Math.sqrt(hidden)),
                Tensor.zeros(1)};
        Adam adam = new Adam(params, lr);

        System.out.printf(Locale.ROOT, "demo: fitting y = sin(3x) with a 1-%d-1 tanh MLP on the %s backend, %d steps%n",
                hidden, backend.name(), steps);
        float first = Float.NaN, last = Float.NaN;
        long start = System.nanoTime();
        for (int step = 1; step <= steps; step++) {
            Tensor[] p = adam.parameters();
            Tensor pred = x.matmul(p[0]).add(p[1]).tanh().matmul(p[2]).add(p[3]);
            Tensor loss = pred.mseLoss(y);
            loss.backward();
            last = loss.item();
            if (step == 1) first = last;
            if (step == 1 || step % 50 == 0) System.out.printf(Locale.ROOT, "step %4d  loss %.5f%n", step, last);
            adam.step();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "loss %.5f -> %.5f in %.2f s (%s)%n", first, last, seconds, backend.memory());
        if (!(last < first / 10)) {
            throw new IllegalStateException("loss did not fall tenfold: " + first + " -> " + last);
        }
    }

    /** Adam (Kingma and Ba, Algorithm 1) over leaf tensors, written with tensor ops. */
    private static final class Adam {
        private static final double BETA1 = 0.9, BETA2 = 0.999, EPS = 1e-8;
        private final Tensor[] params, m, v;
        private final double lr;
        private int t;

        Adam(Tensor[] initial, double lr) {
            this.lr = lr;
            params = new Tensor[initial.length];
            m = new Tensor[initial.length];
            v = new Tensor[initial.length];
            for (int i = 0; i < initial.length; i++) {
                params[i] = initial[i].requiresGrad(true);
                m[i] = Tensor.zerosLike(initial[i]);
                v[i] = Tensor.zerosLike(initial[i]);
            }
        }

        Tensor[] parameters() { return params; }

        /** One update from the gradients of the last backward; the parameters become new leaves. */
        void step() {
            t++;
            double c1 = 1 - Math.pow(BETA1, t), c2 = 1 - Math.pow(BETA2, t);
            try (var scope = GradMode.disabled()) {
                for (int i = 0; i < params.length; i++) {
                    Tensor g = params[i].grad();
                    m[i] = m[i].mul(BETA1).add(g.mul(1 - BETA1));
                    v[i] = v[i].mul(BETA2).add(g.square().mul(1 - BETA2));
                    Tensor update = m[i].div(c1).div(v[i].div(c2).sqrt().add(EPS)).mul(lr);
                    params[i] = params[i].sub(update).detach().requiresGrad(true);
                }
            }
        }
    }

    private static Tensor sin3x(Tensor x) {
        float[] v = x.toFloatArray();
        for (int i = 0; i < v.length; i++) v[i] = (float) Math.sin(3 * v[i]);
        return Tensor.fromArray(v, x.shape());
    }
}
