package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.mamba.Mamba2Mixer;
import dev.symbiont.nn.mamba.Ssd;
import dev.symbiont.nn.mamba.SsdImpl;
import dev.symbiont.nn.mamba.SsdScan;
import dev.symbiont.optim.AdamW;

import java.util.Arrays;
import java.util.Locale;

/**
 * Mamba-2's two SSD forms at {@link MambaVsGptStepBenchmark}'s sizes (batch 1, d_model 128:
 * 8 heads of 32, N 64, one group, chunk 256), both in one JVM, alternating, medians of the
 * rounds' best of three, ms:
 * <ul>
 *   <li>the SSD alone, forward + backward: {@link SsdScan#scan} against {@link Ssd#chunked};</li>
 *   <li>the whole training step of the benchmark's Mamba-2 (5 blocks, forward, backward, AdamW),
 *       its mixers switched between {@link SsdImpl#SCAN} and {@link SsdImpl#CHUNKED}.</li>
 * </ul>
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.Mamba2SsdProfile [rounds] [seq...]}
 * (default 5 rounds at 256, 1024 and 4096).
 */
public final class Mamba2SsdProfile {
    private static final Mamba2Config MIXER = Mamba2Config.of(MambaVsGptStepBenchmark.D_MODEL);

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int[] seqs = args.length > 1 ? Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray() : new int[] {256, 1024, 4096};
        for (int seq : seqs) {
            Runnable scan = ssdAlone(seq, true), chunked = ssdAlone(seq, false);
            double[][] ssd = BestOfThree.alternate(1, rounds, () -> BestOfThree.millis(scan), () -> BestOfThree.millis(chunked));
            System.out.printf(Locale.ROOT, "seq %d, SSD forward + backward (8 heads of 32, N 64): scan %.1f ms, chunked %.1f ms%n",
                    seq, BestOfThree.median(ssd[0]), BestOfThree.median(ssd[1]));
            CausalLM lm = MambaVsGptStepBenchmark.create("mamba2", seq);
            Runnable step = trainingStep(lm, seq);
            double[][] whole = BestOfThree.alternate(1, rounds, () -> {
                use(lm, SsdImpl.SCAN);
                return BestOfThree.millis(step);
            }, () -> {
                use(lm, SsdImpl.CHUNKED);
                return BestOfThree.millis(step);
            });
            System.out.printf(Locale.ROOT, "seq %d, Mamba-2 training step (5 blocks): scan %.1f ms, chunked %.1f ms%n",
                    seq, BestOfThree.median(whole[0]), BestOfThree.median(whole[1]));
        }
    }

    /** One forward + backward of the SSD on random inputs of the mixer's shape. */
    private static Runnable ssdAlone(int seq, boolean scan) {
        Generator g = new Generator(3);
        int h = MIXER.heads(), p = MIXER.headDim(), n = MIXER.dState(), groups = MIXER.nGroups();
        Tensor x = Tensor.randn(g, 1, seq, h, p).requiresGrad(true);
        Tensor dt = Tensor.rand(g, 1, seq, h).mul(0.1).add(0.001).detach().requiresGrad(true);
        Tensor a = Tensor.rand(g, h).mul(-15).sub(1).detach().requiresGrad(true);
        Tensor b = Tensor.randn(g, 1, seq, groups, n).requiresGrad(true), c = Tensor.randn(g, 1, seq, groups, n).requiresGrad(true);
        Tensor d = Tensor.ones(h).requiresGrad(true), gradY = Tensor.randn(g, 1, seq, h, p);
        Tensor[] leaves = {x, dt, a, b, c, d};
        return () -> {
            Ssd.Output o = scan ? SsdScan.scan(x, dt, a, b, c, d, null) : Ssd.chunked(x, dt, a, b, c, d, null, MIXER.chunkSize());
            o.y().backward(gradY);
            for (Tensor t : leaves) t.zeroGrad();
        };
    }

    /** The benchmark's step: loss, backward, AdamW, zero grad. */
    private static Runnable trainingStep(CausalLM lm, int seq) {
        lm.train();
        AdamW optimizer = new AdamW(lm.parameterGroups(0.1), AdamW.options(1e-3));
        Generator g = new Generator(1);
        long[] tokens = new long[seq + 1];
        for (int i = 0; i < tokens.length; i++) tokens[i] = g.nextInt(MambaVsGptStepBenchmark.VOCAB);
        Tensor all = Tensor.fromArray(tokens, 1, seq + 1);
        Tensor ids = all.narrow(1, 0, seq).contiguous(), targets = all.narrow(1, 1, seq).contiguous();
        return () -> {
            lm.loss(ids, targets).backward();
            optimizer.step();
            optimizer.zeroGrad();
        };
    }

    private static void use(CausalLM lm, SsdImpl impl) {
        for (Module m : lm.modules()) if (m instanceof Mamba2Mixer mixer) mixer.ssdImpl(impl);
    }
}
