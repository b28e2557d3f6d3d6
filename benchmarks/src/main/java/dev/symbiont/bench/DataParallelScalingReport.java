package dev.symbiont.bench;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Communicators;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.core.distributed.mpi.MpiCommunicator;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.nn.parallel.DistributedDataParallel;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.GradClip;

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * Weak scaling of the main job's training step: every rank trains {@link MainJobModels} on its
 * own batch of 32 × 128 random tokens (fixed per rank, so N ranks process N times the tokens)
 * with AdamW and clipping as {@code symbiont train} does, the MoE model's load-balancing loss
 * added to the task loss. Modes:
 * <ul>
 * <li>{@code local}: no {@link DistributedDataParallel} (the single-rank baseline; on several
 * ranks the side-by-side control, see below);
 * <li>{@code solo}: on several ranks, rank 0 takes a {@code local} step while the others sleep,
 * the one-rank time measured inside the multi-rank job;
 * <li>{@code bucketed}: DDP with its default caps (first bucket 1 MiB, then 25 MiB), buckets
 * all-reduced while backward runs;
 * <li>{@code single}: DDP with both caps at 1 GiB, so all gradients sit in one bucket whose
 * all-reduce starts when backward has produced the last gradient: one all-reduce after backward;
 * <li>{@code bucketed-block}, {@code single-block}: the same, the MPI thread waiting in the
 * spinning {@code MPI_Allreduce} instead of testing an {@code MPI_Iallreduce} with backoff
 * ({@code -Dsymbiont.mpi.wait=block}, set for that mode's steps).
 * </ul>
 * A step is timed from the forward to the optimizer's zeroGrad and the loss read back; the
 * job's time for a step is the slowest rank's, and the report is the median over the measured
 * steps, with the median split into forward, backward, the gradient sync's wait
 * ({@code finishGradientSync}) and the optimizer. One line:
 * {@code scaling model=gpt ranks=2 mode=bucketed buckets=2 params=… step_ms=… forward_ms=… backward_ms=… sync_ms=… optimizer_ms=… tokens_per_s=…}.
 *
 * <p>Several modes ({@code bucketed,single}) train one model each, from the same initialisation,
 * their steps alternated round by round in the same processes, so they are compared over the
 * same minutes of a noisy machine; a last line gives, for every two modes, the median of the
 * per-round ratios of their step times. {@code local} on several ranks is the control: the
 * ranks train side by side without exchanging anything, so its slowdown over one rank is the
 * machine's (shared cores, caches, memory bandwidth), not the communication's.
 *
 * <p>Run under mpirun with one compute thread per rank ({@code -XX:ActiveProcessorCount=1}):
 * {@code benchmarks/mpi-scaling.sh}. Arguments: model (gpt, moe), modes (comma separated),
 * warm-up steps, measured steps (per mode).
 */
public final class DataParallelScalingReport {
    private static final int DISTINCT_BATCHES = 4;
    /** Caps far above the models' gradients (≤ 10 MiB): one bucket. */
    private static final double ONE_BUCKET_MB = 1024;

    private DataParallelScalingReport() {}

    public static void main(String[] args) {
        MainJobModels family = MainJobModels.parse(args.length > 0 ? args[0] : "gpt");
        String[] modes = (args.length > 1 ? args[1] : "bucketed").split(",");
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 5, steps = args.length > 3 ? Integer.parseInt(args[3]) : 15;
        Communicator world = Communicators.world();
        Run[] runs = new Run[modes.length];
        for (int m = 0; m < modes.length; m++) runs[m] = new Run(modes[m], family.create(17), world);
        Tensor[][] batches = batches(new Random(1000 + world.rank()));
        for (int i = 0; i < warmup; i++) {
            for (Run r : runs) r.step(world, batches[i % DISTINCT_BATCHES], new double[4]);
        }
        double[][] totals = new double[modes.length][steps];
        double[][][] phases = new double[modes.length][4][steps];
        for (int i = 0; i < steps; i++) {
            for (int m = 0; m < modes.length; m++) {   // round-robin: every mode sees the same minutes of this machine
                double[] p = new double[4];
                // Untimed: the ranks start each step together, so a mode does not pay for the skew the one before it left
                // (local steps end unsynchronised, and the next mode's first all-reduce would absorb the difference).
                world.barrier();
                totals[m][i] = runs[m].step(world, batches[i % DISTINCT_BATCHES], p);
                for (int k = 0; k < 4; k++) phases[m][k][i] = p[k];
            }
        }
        for (int m = 0; m < modes.length; m++) {
            // The job moves at its slowest rank's pace: per step, the largest time over the ranks.
            world.allReduce(totals[m], Reduction.MAX);
            for (double[] phase : phases[m]) world.allReduce(phase, Reduction.MAX);
            if (world.rank() != 0) continue;
            Run r = runs[m];
            double step = BestOfThree.median(totals[m]);
            System.out.printf(Locale.ROOT, "scaling model=%s ranks=%d mode=%s buckets=%d params=%d step_ms=%.1f forward_ms=%.1f backward_ms=%.1f "
                            + "sync_ms=%.1f optimizer_ms=%.1f tokens_per_s=%.0f%n",
                    family.flag(), world.size(), r.mode, r.ddp == null ? 0 : r.ddp.bucketAssignment().size(), r.model.parameterCount(), step,
                    BestOfThree.median(phases[m][0]), BestOfThree.median(phases[m][1]), BestOfThree.median(phases[m][2]),
                    BestOfThree.median(phases[m][3]), (r.mode.equals("solo") ? 1 : world.size()) * (double) MainJobModels.BATCH * MainJobModels.CONTEXT / step * 1e3);
        }
        if (world.rank() == 0 && modes.length > 1) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "paired model=%s ranks=%d", family.flag(), world.size()));
            for (int a = 0; a < modes.length; a++) {
                for (int b = a + 1; b < modes.length; b++) {
                    double[] ratio = new double[steps];
                    for (int i = 0; i < steps; i++) ratio[i] = totals[b][i] / totals[a][i];
                    line.append(String.format(Locale.ROOT, " %s_over_%s=%.3f", modes[b], modes[a], BestOfThree.median(ratio)));
                }
            }
            System.out.println(line.append(" (medians of per-round ratios)"));
        }
        for (Run r : runs) if (r.ddp != null) r.ddp.close();
        world.close();
    }

    /** One mode's model, its DDP wrapper (null for {@code local}) and optimizer. */
    private static final class Run {
        final String mode;
        final Gpt model;
        final DistributedDataParallel ddp;
        final AdamW optimizer;

        Run(String mode, Gpt model, Communicator world) {
            this.mode = mode;
            this.model = model;
            this.ddp = switch (mode) {
                case "local", "solo" -> null;
                case "bucketed", "bucketed-block" -> DistributedDataParallel.wrap(model, world);
                case "single", "single-block" -> DistributedDataParallel.builder(model, world).bucketCapMb(ONE_BUCKET_MB).firstBucketCapMb(ONE_BUCKET_MB).build();
                default -> throw new IllegalArgumentException("mode must be local, solo, bucketed, single, bucketed-block or single-block, got '" + mode + "'");
            };
            this.optimizer = new AdamW(model.parameterGroups(0.1), AdamW.options(1e-3).betas(0.9, 0.99));
        }

        /** Milliseconds rank 0 took for its last solo steps: the other ranks sleep about that long. */
        private double soloMillis;

        /**
         * One step of this mode; its milliseconds, the phases' in {@code phases}. In {@code solo}
         * only rank 0 trains (0 ms elsewhere): the others sleep for about its previous step, so
         * they neither compute nor spin in MPI meanwhile, then meet it at a barrier.
         */
        double step(Communicator world, Tensor[] batch, double[] phases) {
            System.setProperty(MpiCommunicator.WAIT_PROPERTY, mode.endsWith("-block") ? "block" : "poll");
            if (!mode.equals("solo")) return DataParallelScalingReport.step(this, batch, phases);
            double millis = 0;
            if (world.rank() == 0) {
                millis = DataParallelScalingReport.step(this, batch, phases);
            } else {
                Arrays.fill(phases, 0);
                sleep(0.9 * soloMillis);
            }
            world.barrier();
            double[] shared = {millis};
            world.allReduce(shared, Reduction.MAX);
            soloMillis = shared[0];
            return millis;
        }

        private static void sleep(double millis) {
            try {
                Thread.sleep((long) millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One training step; returns its milliseconds and leaves forward, backward, sync and optimizer milliseconds in {@code phases}. */
    static double step(Run run, Tensor[] batch, double[] phases) {
        Gpt model = run.model;
        DistributedDataParallel ddp = run.ddp;
        AdamW optimizer = run.optimizer;
        long t0 = System.nanoTime();
        Tensor loss = model.loss(batch[0], batch[1]);
        Tensor aux = model.auxiliaryLoss();
        Tensor total = aux == null ? loss : loss.add(aux);
        long t1 = System.nanoTime();
        total.backward();
        long t2 = System.nanoTime();
        if (ddp != null) ddp.finishGradientSync();
        long t3 = System.nanoTime();
        GradClip.clipGradNorm(model.trainableParameters(), 1.0);
        optimizer.step();
        optimizer.zeroGrad();
        loss.item();
        long t4 = System.nanoTime();
        phases[0] = (t1 - t0) / 1e6;
        phases[1] = (t2 - t1) / 1e6;
        phases[2] = (t3 - t2) / 1e6;
        phases[3] = (t4 - t3) / 1e6;
        return (t4 - t0) / 1e6;
    }

    /** {@link #DISTINCT_BATCHES} (input, target) pairs of random tokens: (batch, context) each. */
    private static Tensor[][] batches(Random random) {
        int b = MainJobModels.BATCH, t = MainJobModels.CONTEXT;
        Tensor[][] out = new Tensor[DISTINCT_BATCHES][];
        for (int k = 0; k < DISTINCT_BATCHES; k++) {
            long[] ids = new long[b * (t + 1)];
            for (int i = 0; i < ids.length; i++) ids[i] = random.nextInt(MainJobModels.VOCAB);
            Tensor all = Tensor.fromArray(ids, b, t + 1);
            out[k] = new Tensor[] {all.narrow(1, 0, t).contiguous(), all.narrow(1, 1, t).contiguous()};
        }
        return out;
    }
}
