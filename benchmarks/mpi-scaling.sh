#!/usr/bin/env bash
# Weak scaling of the main job's GPT and MoE GPT under mpirun, one compute thread per rank.
#
#   benchmarks/mpi-scaling.sh            # builds, then per model: 1 rank (no DDP); 2 ranks: no DDP, bucketed, one bucket
#
# Every rank trains on its own batch of 32 x 128 tokens (DataParallelScalingReport); the JVMs run
# with -XX:ActiveProcessorCount=1, so the CPU backend splits its kernels over one thread and 1 rank
# uses one core, 2 ranks the machine's two. mode=bucketed is DDP with its default caps (first bucket
# 1 MiB, then 25 MiB) all-reduced while backward runs; mode=single puts every gradient in one bucket
# (caps of 1 GiB) whose all-reduce starts when backward ends; mode=local on 2 ranks is the control:
# the two ranks train side by side exchanging nothing, which is what the machine itself allows;
# mode=solo is t(1) inside the 2-rank job: rank 0 trains alone while rank 1 sleeps; bucketed-block and
# single-block are bucketed and single with the MPI thread waiting in the spinning MPI_Allreduce
# instead of testing MPI_Iallreduce with backoff (-Dsymbiont.mpi.wait=block). Each step starts at a
# barrier (untimed), so no mode pays for the skew the one before it left. The modes run
# in one job, their steps alternated round by round, because this VM's speed drifts by up to 2x
# between minutes; the separate 1-rank job is kept for reference. Prints each run's rows, then
# efficiency = t(solo) / t(2), the control's t(solo) / t(2, local) and the overlap gain
# t(single) / t(bucketed), each from the medians of the per-round ratios (the "paired" line).
# The rows also go to benchmarks/target/mpi-scaling.txt, which mpi-netns.sh's scaling model reads.
# Env: MODELS (default "gpt moe"), MODES (the six above), WARMUP (5), STEPS (15), NO_BUILD=1. Holds the shared Maven lock.
. "$(dirname "$0")/mpi-common.sh"

MODELS=${MODELS:-gpt moe}
WARMUP=${WARMUP:-5}
STEPS=${STEPS:-15}
MODES=${MODES:-solo,local,bucketed,single,bucketed-block,single-block}
JVM_OPTS+=(-XX:ActiveProcessorCount=1)
rows=benchmarks/target/mpi-scaling.txt
: > "$rows"

machine | tee -a "$rows"
for model in $MODELS; do
  mpi_java 1 dev.symbiont.bench.DataParallelScalingReport "$model" local "$WARMUP" "$STEPS" | tee -a "$rows"
  mpi_java 2 dev.symbiont.bench.DataParallelScalingReport "$model" "$MODES" "$WARMUP" "$STEPS" | tee -a "$rows"
done

python3 - "$rows" <<'PY'
import sys
one, paired = {}, {}
for line in open(sys.argv[1]):
    words = line.split()
    if not words or words[0] not in ("scaling", "paired"):
        continue
    kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    if words[0] == "scaling" and kv["ranks"] == "1":
        one[kv["model"]] = float(kv["step_ms"])
    elif words[0] == "paired":
        paired[kv["model"]] = {k: float(v) for k, v in kv.items() if "_over_" in k}
for model, r in paired.items():
    line = f"efficiency model={model}"
    for mode in ("bucketed", "single", "bucketed-block", "single-block", "local"):
        if f"{mode}_over_solo" in r:
            line += f" {'side_by_side_control' if mode == 'local' else mode}={1 / r[f'{mode}_over_solo']:.3f}"
    if "single_over_bucketed" in r:
        line += f" overlap_gain={r['single_over_bucketed']:.3f}"
    if "bucketed-block_over_bucketed" in r:
        line += f" poll_gain={r['bucketed-block_over_bucketed']:.3f}"
    if "single-block_over_bucketed-block" in r:
        line += f" overlap_gain_block={r['single-block_over_bucketed-block']:.3f}"
    print(line + " (per-round ratios to solo, the same job)")
PY
