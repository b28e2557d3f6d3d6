package dev.symbiont.nn.moe;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.optim.Adam;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The load-balancing loss at work: a router that starts with every token on one expert learns a
 * regression task with and without the Switch loss. With it the busiest expert ends with at
 * most 2/E of the slots; without it (coefficient 0) the imbalance stays clearly worse — so the
 * test fails if the auxiliary loss stops reaching the router.
 */
class MoeBalancingTest {
    private static final int D = 8, EXPERTS = 4, TOKENS = 64, STEPS = 60;

    /** The busiest expert's share of the slots after training with the given balancing coefficient. */
    private static double busiestShareAfterTraining(double coefficient) {
        Generator g = new Generator(21);
        // Switch-style: top-1, the raw probability as the weight, so the task loss reaches the router too.
        MoeFeedForward moe = new MoeFeedForward(MoeConfig.of(D, EXPERTS, 1, 16).withRenormalize(false), g);
        // Feature 0 is a constant 1 (a bias) that the gate starts reading for expert 0 only, so
        // every token starts on expert 0; the other features vary and let the router spread them.
        float[] gate = new float[EXPERTS * D];
        gate[0] = 2f;
        Generator noise = new Generator(5);
        for (int j = D; j < gate.length; j++) gate[j] = (float) (0.1 * noise.nextGaussian());
        moe.gate().weight().update(Tensor.fromArray(gate, EXPERTS, D));
        float[] xs = Tensor.randn(new Generator(22), TOKENS, D).toFloatArray();
        for (int t = 0; t < TOKENS; t++) xs[t * D] = 1f;
        Tensor x = Tensor.fromArray(xs, TOKENS, D);
        Tensor target = x.matmul(Tensor.randn(new Generator(23), D, D)).tanh();
        Adam opt = new Adam(moe.namedParameters(), Adam.options(0.02));
        for (int step = 0; step < STEPS; step++) {
            opt.zeroGrad();
            Tensor task = moe.forward(x).sub(target).square().mean();
            Tensor loss = task.add(moe.lastAux().loadBalancing().mul(coefficient));
            loss.backward();
            opt.step();
        }
        moe.forward(x);
        return moe.lastAux().expertLoad().max().item();
    }

    @Test
    void theBalancingLossSpreadsTheSlotsAndWithoutItTheyStayOnFewExperts() {
        // A large coefficient for 60 steps of a tiny task (models train with 0.001-0.01 for many more).
        double balanced = busiestShareAfterTraining(0.1);
        double unbalanced = busiestShareAfterTraining(0);
        assertTrue(balanced <= 2.0 / EXPERTS, "with the loss the busiest expert has " + balanced + " of the slots");
        assertTrue(unbalanced >= balanced + 0.3, "without the loss the busiest expert has " + unbalanced
                + ", with it " + balanced);
    }
}
