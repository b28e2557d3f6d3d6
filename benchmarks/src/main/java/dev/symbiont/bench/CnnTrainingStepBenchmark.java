package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.models.resnet.ResNet;
import dev.symbiont.models.resnet.ResNetConfig;
import dev.symbiont.models.vit.ViT;
import dev.symbiont.models.vit.ViTConfig;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamGroup;
import dev.symbiont.optim.SGD;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One training step of an image classifier on a batch of 28×28 grey images in 10 classes —
 * forward, cross-entropy with label smoothing 0.1, backward, optimizer step, zero grad — as
 * {@code train --task fashion-mnist} runs it (the ResNets with SGD and Nesterov momentum, the ViT
 * with AdamW): ResNetConfig.small28 (the command line's default ResNet, a ResNet-10 behind the pooled
 * small-image stem) or the small-image ResNet-18 at a given first-stage width (64 is the paper's),
 * and ViTConfig.small28.
 * Images per second = batch / (time per step).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class CnnTrainingStepBenchmark {
    @Param({"small28", "vit"})
    public String model;

    /** ResNet's first-stage width, doubled per stage (24: small28's own); ignored by the ViT. */
    @Param({"24"})
    public int width;

    @Param({"128"})
    public int batch;

    private ImageClassifier net;
    private Optimizer optimizer;
    private Tensor images, labels;

    @Setup
    public void setUp() {
        Generator g = new Generator(42);
        net = switch (model) {
            case "small28" -> new ResNet(ResNetConfig.small28().withWidths(width, 2 * width, 4 * width, 8 * width), g);
            case "resnet18" -> new ResNet(ResNetConfig.resnet18().forSmallImages().withInChannels(1).withNumClasses(10)
                    .withWidths(width, 2 * width, 4 * width, 8 * width), g);
            case "vit" -> new ViT(ViTConfig.small28(), g);
            default -> throw new IllegalArgumentException("model " + model);
        };
        net.train();
        optimizer = net instanceof ViT ? new AdamW(ParamGroup.splitDecay(net, 0.05), AdamW.options(2e-3))
                : new SGD(ParamGroup.splitDecay(net, 5e-4), SGD.options(0.2).momentum(0.9).nesterov(true));
        images = Tensor.randn(new Generator(1), batch, 1, 28, 28);
        long[] y = new long[batch];
        for (int i = 0; i < batch; i++) y[i] = i % 10;
        labels = Tensor.fromArray(y);
    }

    @Benchmark
    public double step() {
        Tensor loss = net.loss(images, labels, 0.1);
        loss.backward();
        optimizer.step();
        optimizer.zeroGrad();
        return loss.item();
    }
}
