package dev.symbiont.optim;

import dev.symbiont.amp.GradScaler;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Training N steps, saving, and resuming M steps in a fresh model and optimizer gives the same
 * parameters, bit for bit, as training N + M steps without stopping. The loop is a full
 * trainer step: scaled loss, unscale, clip, scheduled lr, step, scaler update.
 */
class ResumeTest {
    private static final int N = 12, M = 10;
    private static final LrSchedule SCHEDULE = LrSchedule.warmupCosine(0.05, 0.005, 5, 40);

    enum Kind {
        SGD_NESTEROV, ADAM, ADAMW;

        Optimizer create(TinyMlp model) {
            List<ParamGroup> groups = ParamGroup.splitDecay(model, 0.1);
            return switch (this) {
                case SGD_NESTEROV -> new SGD(groups, SGD.options(0.05).momentum(0.9).nesterov(true));
                case ADAM -> new Adam(groups, Adam.options(0.05));
                case ADAMW -> new AdamW(groups, AdamW.options(0.05).betas(0.9, 0.95));
            };
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void resumingFromStateDictsMatchesAnUninterruptedRunBitForBit(Kind kind) {
        TinyMlp model = new TinyMlp(2, 8, 1, 1);
        Optimizer optimizer = kind.create(model);
        GradScaler scaler = new GradScaler(1024, 2.0, 0.5, 4);
        train(model, optimizer, scaler, 0, N);
        Map<String, Tensor> modelState = copy(model.stateDict());
        Map<String, Tensor> optimizerState = copy(optimizer.stateDict());
        Map<String, Tensor> scalerState = copy(scaler.stateDict());
        train(model, optimizer, scaler, N, N + M);

        TinyMlp resumed = new TinyMlp(2, 8, 1, 999); // other initial values: the load must overwrite them
        Optimizer resumedOptimizer = kind.create(resumed);
        GradScaler resumedScaler = new GradScaler(1024, 2.0, 0.5, 4);
        resumed.loadStateDict(modelState, true);
        resumedOptimizer.loadStateDict(optimizerState);
        resumedScaler.loadStateDict(scalerState);
        train(resumed, resumedOptimizer, resumedScaler, N, N + M);

        List<int[]> expected = TinyMlp.bits(model), actual = TinyMlp.bits(resumed);
        for (int i = 0; i < expected.size(); i++) assertArrayEquals(expected.get(i), actual.get(i), kind + " parameter " + i);
        assertEquals(scaler.currentScale(), resumedScaler.currentScale());
        assertEquals(scaler.growthTracker(), resumedScaler.growthTracker());
    }

    /** Steps [from, to) on mini-batches drawn from a generator seeded by the step, as a data loader would. */
    private static void train(TinyMlp model, Optimizer optimizer, GradScaler scaler, int from, int to) {
        for (int step = from; step < to; step++) {
            Generator gen = new Generator(1000 + step);
            Tensor x = Tensor.randn(gen, 16, 2);
            Tensor y = x.narrow(1, 0, 1).mul(x.narrow(1, 1, 1)).tanh();
            optimizer.zeroGrad();
            scaler.scale(model.forward(x).mseLoss(y)).backward();
            scaler.unscale(optimizer);
            GradClip.clipGlobalNorm(optimizer.parameters().values(), 0.5);
            SCHEDULE.applyTo(optimizer, step);
            scaler.step(optimizer);
            scaler.update();
        }
    }

    /** Snapshots: the model's state-dict tensors share storage with parameters updated in place. */
    private static Map<String, Tensor> copy(Map<String, Tensor> state) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        state.forEach((k, v) -> out.put(k, v.clone()));
        return out;
    }
}
