#!/usr/bin/env bash
# All-reduce through Symbiont's java.lang.foreign MPI binding against the same calls from C, in one run.
#
#   benchmarks/mpi-allreduce.sh          # builds, then under mpirun -np 2: the C peer, then MpiAllReduceReport, twice
#
# Both time float32 SUM in place, 8 B .. 64 MiB doubling: per size a warm-up, then 3 rounds of
# (barrier, n calls, the slowest rank's mean); the median round. Java prints two rows per size:
# impl=ffm (MPI_Allreduce through the downcall on an off-heap segment, the binding's own cost) and
# impl=tensor (MpiCommunicator.allReduce(tensor).await(): staging copies, the MPI thread's hand-off).
# C and Java alternate (REPEAT times, 2 by default): this VM's speed drifts by up to 2x over
# minutes, so each comparison is of sweeps taken back to back. Then, per repetition, one line per
# size: the latency difference to C in microseconds (sizes <= 4 KiB) and the bandwidth ratio to C
# (sizes >= 1 MiB). The run holds the shared Maven lock (mpi-common.sh).
# Env: MAX_BYTES (default 67108864), REPEAT (2), NO_BUILD=1, MPI_OPTS (extra mpirun options, e.g. "--mca btl self,vader").
. "$(dirname "$0")/mpi-common.sh"

MAX_BYTES=${MAX_BYTES:-67108864}
REPEAT=${REPEAT:-2}
MPI_OPTS=(${MPI_OPTS:-})
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

machine
for r in $(seq "$REPEAT"); do
  echo "# repetition $r: C, then Java"
  mpirun --oversubscribe --bind-to none -np 2 "${MPIRUN_ROOT[@]}" "${MPI_OPTS[@]}" "$C_PEER" "$MAX_BYTES" | tee "$work/$r"
  mpi_java 2 "${MPI_OPTS[@]}" -- dev.symbiont.bench.MpiAllReduceReport "$MAX_BYTES" | tee -a "$work/$r"
done

python3 - "$work" "$REPEAT" <<'PY'
import os, sys
work, repeat = sys.argv[1], int(sys.argv[2])
print("# latency: Java minus C, microseconds (sizes <= 4 KiB); bandwidth: C time / Java time (sizes >= 1 MiB)")
for r in range(1, repeat + 1):
    rows = {}
    for line in open(os.path.join(work, str(r))):
        if line.startswith("allreduce "):
            kv = dict(w.split("=", 1) for w in line.split()[1:])
            rows[(kv["impl"], int(kv["bytes"]))] = float(kv["us"])
    for b in sorted({b for _, b in rows}):
        c = rows.get(("c", b))
        if c is None or 4096 < b < 1 << 20:
            continue
        cells = []
        for impl in ("ffm", "tensor"):
            j = rows.get((impl, b))
            if j is not None:
                cells.append(f"{impl}_minus_c_us={j - c:+.3f}" if b <= 4096 else f"{impl}_bandwidth_ratio={c / j:.3f}")
        print(f"compare repetition={r} bytes={b} c_us={c:.3f} " + " ".join(cells))
PY
