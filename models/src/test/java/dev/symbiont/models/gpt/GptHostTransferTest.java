package dev.symbiont.models.gpt;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.optim.Adam;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.GradClip;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamGroup;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A GPT training step (forward, cross entropy, backward, device-side clipping, the optimizer
 * step, zeroGrad) moves no data between host and backend: after the first step, which may set
 * things up, every upload and download is counted and must be zero. The batches are uploaded
 * before the steps, as a data loader would; the loss is read with item() only after them.
 */
class GptHostTransferTest {
    private static final GptConfig CONFIG = GptConfig.of(23, 16, 2, 4, 12);
    private static final int STEPS = 3;

    /** The CPU backend, counting every host transfer and where it came from. */
    static final class CountingBackend extends CpuBackend {
        final List<String> transfers = new ArrayList<>();

        private void count(String what) {
            String origin = StackWalker.getInstance().walk(frames -> frames
                    .map(f -> f.getClassName().replaceFirst("^dev\\.symbiont\\.", "") + "." + f.getMethodName() + ":" + f.getLineNumber())
                    .filter(f -> !f.startsWith("models.gpt.GptHostTransferTest$CountingBackend"))
                    .limit(6).toList()).toString();
            transfers.add(what + " from " + origin);
        }

        // The segment forms: every transfer, the array conveniences included, goes through them.
        @Override
        public Storage upload(DType dtype, MemorySegment source) {
            count("upload");
            return super.upload(dtype, source);
        }

        @Override
        public void download(Storage storage, Layout layout, MemorySegment target) {
            count("download");
            super.download(storage, layout, target);
        }
    }

    /** Random ids in [0, vocab), (batch, seq); targets get one ignored entry, so the mask path runs too. */
    private static Tensor ids(Generator g, int batch, int seq, boolean target) {
        long[] v = new long[batch * seq];
        for (int i = 0; i < v.length; i++) v[i] = g.nextInt(CONFIG.vocab());
        if (target) v[3] = -100;
        return Tensor.fromArray(v, batch, seq);
    }

    /** Transfers in steps 2..STEPS of training {@code config} with the optimizer {@code make} builds. */
    private static List<String> transfersAfterTheFirstStep(GptConfig config, Function<Gpt, Optimizer> make) {
        CountingBackend be = new CountingBackend();
        try (var scope = Backends.use(be)) {
            Gpt model = new Gpt(config, new Generator(1));
            Optimizer optimizer = make.apply(model);
            Generator data = new Generator(2);
            List<Tensor[]> batches = new ArrayList<>();
            for (int s = 0; s < STEPS; s++) {
                batches.add(new Tensor[] {ids(data, 3, 7, false), ids(data, 3, 7, true)});
            }
            List<Tensor> losses = new ArrayList<>();
            for (int s = 0; s < STEPS; s++) {
                if (s == 1) be.transfers.clear();
                Tensor loss = model.loss(batches.get(s)[0], batches.get(s)[1]);
                loss.backward();
                GradClip.clipGradNorm(model.trainableParameters(), 1.0);
                optimizer.step();
                optimizer.zeroGrad();
                losses.add(loss);
            }
            List<String> seen = List.copyOf(be.transfers);
            for (Tensor l : losses) assertEquals(true, Float.isFinite(l.item()), "loss " + l);
            return seen;
        }
    }

    @Test
    void aGptStepWithAdamWMovesNothingToOrFromTheHost() {
        List<String> t = transfersAfterTheFirstStep(CONFIG, m -> new AdamW(ParamGroup.splitDecay(m, 0.01), AdamW.options(1e-3)));
        assertEquals(List.of(), t, "host transfers in steps 2.." + STEPS);
    }

    @Test
    void aGptStepWithAdamMovesNothingToOrFromTheHost() {
        List<String> t = transfersAfterTheFirstStep(CONFIG.withPositions(PositionKind.ROPE),
                m -> new Adam(m.namedParameters(), Adam.options(1e-3)));
        assertEquals(List.of(), t, "host transfers in steps 2.." + STEPS);
    }

    @Test
    void aGptStepWithDropoutMovesNothingToOrFromTheHost() {
        List<String> t = transfersAfterTheFirstStep(CONFIG.withDropout(0.1),
                m -> new AdamW(ParamGroup.splitDecay(m, 0.01), AdamW.options(1e-3)));
        assertEquals(List.of(), t, "host transfers in steps 2.." + STEPS);
    }
}
