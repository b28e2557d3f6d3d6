package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.core.fused.Families;
import dev.symbiont.core.fused.Family;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.Dataset;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.data.vision.ImageBatch;
import dev.symbiont.data.vision.ImageExample;
import dev.symbiont.models.convnext.ConvNeXt;
import dev.symbiont.models.convnext.ConvNeXtConfig;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.PositionKind;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.models.resnet.ResNet;
import dev.symbiont.models.resnet.ResNetConfig;
import dev.symbiont.models.resnet.ResNetStem;
import dev.symbiont.models.vit.ViT;
import dev.symbiont.models.vit.ViTConfig;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.MoeLayers;
import dev.symbiont.optim.Adam;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamGroup;
import dev.symbiont.optim.SGD;
import dev.symbiont.peft.Lora;
import dev.symbiont.peft.LoraConfig;
import dev.symbiont.peft.LoraModel;
import dev.symbiont.peft.ModuleNames;
import dev.symbiont.peft.TargetModules;
import dev.symbiont.train.Trainer;
import dev.symbiont.train.TrainerConfig;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every model the library ships trains without moving data between host and backend except
 * where a {@link HostTransfer} allows it. The real {@link Trainer} runs {@value #STEPS} steps
 * (clipping on, non-finite steps skipped, a metrics file, auxiliary losses where the model has them) on a backend that
 * counts every upload and download from the second batch on, once with the backend's own
 * kernels and once with every fused family forced to its reference, which is what a new device
 * backend runs before it has kernels of its own. Logging falls only on the last step, where the
 * trainer reads the window's loss and metrics; one GPT run also evaluates and checkpoints there.
 */
class HostTransferTest {
    private static final int STEPS = 3, BATCH = 2;

    @TempDir
    Path dir;

    /** Which kernels the fused ops run on. */
    enum Kernels {
        BACKEND, REFERENCE;

        Scope select() {
            return this == BACKEND ? () -> {} : FusedKernels.forceReference(Families.all().toArray(Family<?>[]::new));
        }
    }

    /** The models, each small, with the optimizer and options its family trains with. */
    enum Model {
        GPT {
            @Override Training<?, ?> build(Generator g) {
                Gpt m = new Gpt(GptConfig.of(VOCAB, 16, 2, 4, SEQ), g);
                return lm(m, adamW(m)).withEvaluationAndCheckpoint();
            }
        },
        GPT_WITH_DROPOUT {
            @Override Training<?, ?> build(Generator g) {
                Gpt m = new Gpt(GptConfig.of(VOCAB, 16, 2, 4, SEQ).withDropout(0.1), g);
                return lm(m, adamW(m));
            }
        },
        /** Llama's choices: SwiGLU, rotary positions, grouped-query attention, RMSNorm; plain Adam. */
        GPT_SWIGLU_ROPE_GQA_RMSNORM {
            @Override Training<?, ?> build(Generator g) {
                Gpt m = new Gpt(GptConfig.of(VOCAB, 16, 2, 4, SEQ).withMlp(MlpKind.SWIGLU).withPositions(PositionKind.ROPE)
                        .withKvHeads(2).withNorm(NormKind.RMS_NORM), g);
                return lm(m, new Adam(m.namedParameters(), Adam.options(1e-3)));
            }
        },
        /** LoRA on every linear layer (fused qkv, SwiGLU's pair) of a frozen Llama-style GPT, with adapter dropout. */
        LORA_GPT {
            @Override Training<?, ?> build(Generator g) {
                Gpt m = new Gpt(GptConfig.of(VOCAB, 16, 2, 4, SEQ).withMlp(MlpKind.SWIGLU).withPositions(PositionKind.ROPE), g);
                LoraModel lora = Lora.apply(m, ModuleNames.SYMBIONT, LoraConfig.of(2, 4, 0.1, new TargetModules.AllLinear()), g);
                return lm(m, new AdamW(lora.parameterGroups(0), AdamW.options(1e-3)));
            }
        },
        /** As {@code train --arch moe} builds it (every MLP MoE, dropless), with a shared expert and the z-loss too. */
        MOE_GPT {
            @Override Training<?, ?> build(Generator g) {
                Gpt m = new Gpt(GptConfig.of(VOCAB, 16, 2, 2, SEQ).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU),
                        new MoeLayers(4, 2, 12, Dispatch.dropless(), true, 1, 1, 0.01, 0.001), g, 0.1);
                return lm(m, adamW(m)).withAuxiliaryLoss(m::auxiliaryLoss);
            }
        },
        MAMBA {
            @Override Training<?, ?> build(Generator g) {
                MambaLM m = new MambaLM(MambaLMConfig.of(VOCAB, 8, 2, 4, 4, 2), g, 0.5);
                return lm(m, adamW(m));
            }
        },
        MAMBA2 {
            @Override Training<?, ?> build(Generator g) {
                MambaLM m = new MambaLM(MambaLMConfig.mamba2(VOCAB, new Mamba2Config(8, 4, 4, 4, 2, 4, 3), 2), g, 0.5);
                return lm(m, adamW(m));
            }
        },
        /** The Fashion-MNIST ResNet's pooled small-image stem, so max pooling runs too. */
        RESNET {
            @Override Training<?, ?> build(Generator g) {
                ResNet m = new ResNet(ResNetConfig.resnet18().withStem(ResNetStem.SMALL_POOLED).withInChannels(1).withNumClasses(2)
                        .withWidths(8, 16, 16, 16).withLayers(1, 1, 1, 1), g);
                return images(m, new SGD(m.namedParameters(), SGD.options(0.05).momentum(0.9).weightDecay(1e-4)));
            }
        },
        CONVNEXT {
            @Override Training<?, ?> build(Generator g) {
                ConvNeXt m = new ConvNeXt(new ConvNeXtConfig(1, 2, new int[] {1, 1}, new int[] {8, 16}, 2, 1e-6, 0.1), g);
                return images(m, adamW(m));
            }
        },
        VIT {
            @Override Training<?, ?> build(Generator g) {
                ViT m = new ViT(new ViTConfig(8, 4, 1, 2, 16, 2, 2, 32, 0.1, 0.1), g);
                return images(m, adamW(m));
            }
        };

        private static final int VOCAB = 11, SEQ = 7, IMAGE = 8;

        /** The model and how it trains, built on the current backend. */
        abstract Training<?, ?> build(Generator g);

        private static Optimizer adamW(dev.symbiont.nn.Module m) {
            return new AdamW(ParamGroup.splitDecay(m, 0.01), AdamW.options(1e-3));
        }

        /** Random token windows; each target has one ignored position, so the loss's mask path runs. */
        private static Training<SequenceExample, SequenceBatch> lm(CausalLM m, Optimizer opt) {
            SplittableRandom r = new SplittableRandom(7);
            List<SequenceExample> examples = new ArrayList<>();
            for (int i = 0; i < STEPS * BATCH; i++) {
                long[] input = r.longs(SEQ, 0, VOCAB).toArray(), target = r.longs(SEQ, 0, VOCAB).toArray();
                target[i % SEQ] = SequenceExample.IGNORE;
                examples.add(new SequenceExample(input, target));
            }
            return new Training<>(m, opt, examples, SequenceExample::collate, b -> m.loss(b.input(), b.target()), null, false);
        }

        /** Random grey images with alternating labels. */
        private static Training<ImageExample, ImageBatch> images(ImageClassifier m, Optimizer opt) {
            SplittableRandom r = new SplittableRandom(8);
            List<ImageExample> examples = new ArrayList<>();
            for (int i = 0; i < STEPS * BATCH; i++) {
                float[] pixels = new float[IMAGE * IMAGE];
                for (int p = 0; p < pixels.length; p++) pixels[p] = (float) (2 * r.nextDouble() - 1);
                examples.add(new ImageExample(pixels, 1, IMAGE, IMAGE, i % 2));
            }
            return new Training<>(m, opt, examples, ImageExample::collate, b -> m.loss(b.images(), b.labels()), null, false);
        }
    }

    /**
     * What the trainer runs: an in-memory dataset of {@code STEPS · BATCH} examples, its collate,
     * the loss, an auxiliary loss or null, and whether the last step also evaluates and checkpoints.
     */
    record Training<T, B>(dev.symbiont.nn.Module model, Optimizer optimizer, List<T> examples, Function<List<T>, B> collate,
                          Trainer.LossFunction<B> loss, Supplier<Tensor> auxiliaryLoss, boolean evaluatedAndCheckpointed) {
        Training<T, B> withAuxiliaryLoss(Supplier<Tensor> aux) {
            return new Training<>(model, optimizer, examples, collate, loss, aux, evaluatedAndCheckpointed);
        }

        Training<T, B> withEvaluationAndCheckpoint() {
            return new Training<>(model, optimizer, examples, collate, loss, auxiliaryLoss, true);
        }

        /** The transfers {@code STEPS} training steps make from the second batch on. */
        Trainer.Result fit(TransferCountingBackend backend, Path dir) throws IOException {
            int[] collated = {0};
            // The second batch is collated after the first step's optimizer step: counting starts there.
            Function<List<T>, B> counting = items -> {
                if (collated[0]++ == 1) backend.startCounting();
                return collate.apply(items);
            };
            DataLoader<T, B> loader = DataLoader.builder(Dataset.of(examples), counting).batchSize(BATCH).build();
            // Skipping non-finite steps runs every op of the non-finite check and the taking back of a step's update.
            TrainerConfig config = TrainerConfig.steps(STEPS).withClipNorm(1.0).withLogEvery(1000).withMetrics(dir.resolve("metrics.csv"))
                    .withSkipNonFinite(1).withProgress(TrainerConfig.ProgressMode.NONE, System.err);
            var trainer = Trainer.builder(model, optimizer, loader, loss).auxiliaryLoss(auxiliaryLoss);
            if (evaluatedAndCheckpointed) {
                trainer.eval(DataLoader.builder(Dataset.of(examples), collate).batchSize(BATCH).build(), loss);
                config = config.withEval(STEPS, 1).withCheckpoint(dir.resolve("checkpoint.safetensors"), 0, false);
            }
            return trainer.config(config).build().fit();
        }
    }

    static Stream<Arguments> runs() {
        return Stream.of(Model.values()).flatMap(m -> Stream.of(Kernels.values()).map(k -> Arguments.of(m, k)));
    }

    @ParameterizedTest(name = "{0} on the {1} kernels")
    @MethodSource("runs")
    void aTrainingStepMovesNothingBetweenHostAndBackendButWhatIsAllowed(Model model, Kernels kernels) throws IOException {
        assertOnlyAllowedTransfers(model, kernels);
    }

    private void assertOnlyAllowedTransfers(Model model, Kernels kernels) throws IOException {
        TransferCountingBackend backend = new TransferCountingBackend();
        Trainer.Result result;
        Training<?, ?> training;
        try (var on = Backends.use(backend); var selected = kernels.select()) {
            training = model.build(new Generator(1));
            result = training.fit(backend, dir);
        }
        assertEquals(STEPS, result.steps());
        assertTrue(Double.isFinite(result.trainLoss()), "train loss " + result.trainLoss());
        List<String> strays = backend.strays();
        assertTrue(strays.isEmpty(), () -> model + " on the " + kernels + " kernels: host transfers outside an allowed scope in steps 2.."
                + STEPS + ":\n  " + String.join("\n  ", strays));
        // The deliberate ones were seen: the batches, the logged loss and metrics, and where asked evaluation and checkpoint.
        Set<HostTransfer> expected = training.evaluatedAndCheckpointed()
                ? EnumSet.of(HostTransfer.BATCH, HostTransfer.LOGGED_METRICS, HostTransfer.EVALUATION, HostTransfer.CHECKPOINT)
                : EnumSet.of(HostTransfer.BATCH, HostTransfer.LOGGED_METRICS);
        assertEquals(expected, backend.allowed().keySet(), "deliberate transfers " + backend.allowed());
        // Steps 2 and 3 collate one batch each, two tensors apiece (inputs and targets, or images and labels).
        assertEquals(2 * (STEPS - 1) + (training.evaluatedAndCheckpointed() ? 2 : 0), backend.allowed().get(HostTransfer.BATCH),
                "batch uploads " + backend.allowed());
    }
}
