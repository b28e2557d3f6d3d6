#!/usr/bin/env bash
# All-reduce through Symbiont's java.lang.foreign MPI binding against the same calls from C, in one run.
#
#   benchmarks/mpi-allreduce.sh          # builds, then under mpirun -np 2: the C peer, then MpiAllReduceReport
#
# Both time float32 SUM in place, 8 B .. 64 MiB doubling: per size a warm-up, then 3 rounds of
# (barrier, n calls, the slowest rank's mean); the median round. Java prints two rows per size: impl=ffm (MPI_Allreduce through the
# downcall on an off-heap segment, the binding's own cost) and impl=tensor
# (MpiCommunicator.allReduce(tensor).await(): staging copies and the MPI thread's hand-off).
# Then one line per size: the latency difference to C in microseconds (sizes <= 4 KiB) and the
# bandwidth ratio to C (sizes >= 1 MiB). The run holds the shared Maven lock (mpi-common.sh).
# Env: MAX_BYTES (default 67108864), NO_BUILD=1, MPI_OPTS (extra mpirun options, e.g. "--mca btl self,vader").
. "$(dirname "$0")/mpi-common.sh"

MAX_BYTES=${MAX_BYTES:-67108864}
MPI_OPTS=(${MPI_OPTS:-})
out=$(mktemp); trap 'rm -f "$out"' EXIT

machine
mpirun --oversubscribe --bind-to none -np 2 "${MPIRUN_ROOT[@]}" "${MPI_OPTS[@]}" "$C_PEER" | awk -v max="$MAX_BYTES" '$4 ~ /^bytes=/ { split($4, b, "="); if (b[2] + 0 <= max + 0) print }' | tee -a "$out"
mpi_java 2 "${MPI_OPTS[@]}" -- dev.symbiont.bench.MpiAllReduceReport "$MAX_BYTES" | tee -a "$out"

python3 - "$out" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith("allreduce "):
        continue
    kv = dict(w.split("=", 1) for w in line.split()[1:])
    rows[(kv["impl"], int(kv["bytes"]))] = float(kv["us"])
sizes = sorted({b for _, b in rows})
print("# latency: Java minus C, microseconds (sizes <= 4 KiB); bandwidth: C time / Java time (sizes >= 1 MiB)")
for b in sizes:
    c = rows.get(("c", b))
    if c is None:
        continue
    cells = []
    for impl in ("ffm", "tensor"):
        j = rows.get((impl, b))
        if j is None:
            continue
        if b <= 4096:
            cells.append(f"{impl}_minus_c_us={j - c:+.3f}")
        elif b >= 1 << 20:
            cells.append(f"{impl}_bandwidth_ratio={c / j:.3f}")
    if cells:
        print(f"compare bytes={b} c_us={c:.3f} " + " ".join(cells))
PY
