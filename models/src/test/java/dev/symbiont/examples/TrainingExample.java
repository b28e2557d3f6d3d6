package dev.symbiont.examples;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.Dataset;
import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.data.tasks.RegressionExample;
import dev.symbiont.data.tasks.RegressionTask;
import dev.symbiont.io.Safetensors;
import dev.symbiont.nn.Checkpoint;
import dev.symbiont.nn.LayerNorm;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.ModuleList;
import dev.symbiont.nn.ResidualMlpBlock;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.ParamGroup;
import dev.symbiont.train.Trainer;
import dev.symbiont.train.TrainerConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The complete example of docs/training.md; TrainingExampleTest runs it, so the document cannot rot. */
public final class TrainingExample {
    /** A residual MLP regressor: x (batch, features) → (batch, 1). */
    static final class Regressor extends Module {
        final Linear input;
        final ModuleList<ResidualMlpBlock> blocks;
        final LayerNorm norm;
        final Linear head;
        boolean checkpointing;

        Regressor(int features, int width, int depth, Generator g) {
            input = module("input", new Linear(features, width, true, g));
            List<ResidualMlpBlock> list = new ArrayList<>();
            for (int i = 0; i < depth; i++) list.add(new ResidualMlpBlock(width, 4 * width, 0.0, g));
            blocks = module("blocks", new ModuleList<>(list));
            norm = module("norm", new LayerNorm(width));
            head = module("head", new Linear(width, 1, true, g));
        }

        Tensor forward(Tensor x) {
            Tensor h = input.forward(x);
            for (ResidualMlpBlock block : blocks) {
                // Activation checkpointing: recompute each block in backward instead of storing it.
                h = checkpointing ? Checkpoint.run(block, block::forward, h) : block.forward(h);
            }
            return head.forward(norm.forward(h));
        }
    }

    public static Trainer.Result run(Path workDir, int steps) throws IOException {
        // 1. Data: a regression task with a known answer, split into train and validation.
        RegressionTask task = new RegressionTask(16, 0.05f, 4096, 1);
        Dataset<RegressionExample> train = task.slice(0, 3584), val = task.slice(3584, 4096);
        DataLoader<RegressionExample, RegressionBatch> trainLoader = DataLoader.builder(train, RegressionExample::collate)
                .batchSize(64).shuffle(7).dropLast(true).prefetch(2).build();
        DataLoader<RegressionExample, RegressionBatch> valLoader = DataLoader.builder(val, RegressionExample::collate)
                .batchSize(128).build();

        // 2. Model and optimizer: AdamW without weight decay on biases and norms.
        Regressor model = new Regressor(16, 64, 4, new Generator(42));
        model.checkpointing = true;
        AdamW optimizer = new AdamW(ParamGroup.splitDecay(model, 0.01), AdamW.options(3e-3));

        // 3. The trainer: warm-up + cosine schedule, clipping, bf16 autocast, evaluation,
        //    metrics and checkpoints (rerunning resumes from the checkpoint).
        Trainer<RegressionBatch> trainer = Trainer.builder(model, optimizer, trainLoader,
                        (RegressionBatch b) -> Losses.mse(model.forward(b.x()), b.y()))
                .schedule(LrSchedule.warmupCosine(3e-3, 3e-4, steps / 10, steps))
                .eval(valLoader, b -> Losses.mse(model.forward(b.x()), b.y()))
                .tokensPerBatch(b -> b.x().size(0))
                .config(TrainerConfig.steps(steps)
                        .withClipNorm(1.0)
                        .withAutocast(DType.BFLOAT16)
                        .withEval(steps / 4, 4)
                        .withMetrics(workDir.resolve("metrics.csv"))
                        .withCheckpoint(workDir.resolve("checkpoint.safetensors"), steps / 2, true))
                .build();

        // 4. Train under the profiler and print where the time went.
        Trainer.Result result;
        try (ProfilerSession profile = Profiler.start("training example")) {
            result = trainer.fit();
            System.out.println(profile.report().table());
        }

        // 5. Export the weights alone (PyTorch-style keys: blocks.0.up.weight, ...).
        Safetensors.write(workDir.resolve("model.safetensors"), model.stateDict());
        return result;
    }
}
