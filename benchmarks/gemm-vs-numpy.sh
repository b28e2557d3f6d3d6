#!/usr/bin/env bash
# Symbiont float32 GEMM (vector and EJML paths, JMH) against numpy/OpenBLAS, same sizes, same run.
#
#   benchmarks/gemm-vs-numpy.sh            # builds, benchmarks, prints one line per size and path:
#   gemm path=vector n=1024 symbiont_gflops=... numpy_gflops=... ratio=...
#
# Settings: JMH -wi 3 -i 5 -f 1 (1 s iterations, time per product averaged); EJML at n=2048
# takes seconds per product, so that one cell runs -wi 1 -i 3. numpy: median of 7 timed
# repetitions after warm-up, run right before the JMH runs of the same size, with
# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset so OpenBLAS picks its best kernel for this CPU. Env SIZES overrides the sizes (comma separated).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-256,512,1024,2048}

. bin/java-env.sh
JAVA="$JAVA_HOME/bin/java"

# Build (one Maven at a time on shared machines; offline first, online if dependencies are missing).
LOCK=(); command -v flock >/dev/null && LOCK=(flock /tmp/symbiont-mvn.lock)
{ "${LOCK[@]}" mvn -o -q -DskipTests -pl benchmarks -am package \
  || "${LOCK[@]}" mvn -q -DskipTests -pl benchmarks -am package; } >&2
JAR=benchmarks/target/benchmarks.jar

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

jmh() { "$JAVA" --add-modules jdk.incubator.vector -jar "$JAR" GemmBenchmark -f 1 \
          -jvmArgsAppend "--add-modules jdk.incubator.vector" -rf json "$@" >&2; }

# numpy at its best: OpenBLAS picks its kernel and cache sizes itself.
numpy() {
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python3 - "$1" <<'PY'
import sys, time, statistics
import numpy as np
n = int(sys.argv[1])
rng = np.random.default_rng(42)
a = rng.random((n, n), dtype=np.float32) - 0.5
b = rng.random((n, n), dtype=np.float32) - 0.5
reps = max(3, int(1e10 / (2 * n**3)))         # ~1e10 flops (tens of ms) per timing
for _ in range(reps):
    a @ b
times = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(reps):
        a @ b
    times.append((time.perf_counter() - t) / reps)
print(n, 2 * n**3 / statistics.median(times) / 1e9)
PY
}

# Size by size, numpy next to JMH, so both see the same machine (other load, clocks).
# EJML at n>=2048 takes seconds per product: fewer iterations there.
for n in ${SIZES//,/ }; do
  numpy "$n" >> "$work/numpy.txt"
  jmh -wi 3 -i 5 -p n="$n" -p path=vector -rff "$work/vector-$n.json"
  if [ "$n" -ge 2048 ]; then
    jmh -wi 1 -i 3 -p n="$n" -p path=ejml -rff "$work/ejml-$n.json"
  else
    jmh -wi 3 -i 5 -p n="$n" -p path=ejml -rff "$work/ejml-$n.json"
  fi
done

python3 - "$work" "$SIZES" <<'PY'
import json, os, sys
work, sizes = sys.argv[1], [int(s) for s in sys.argv[2].split(',')]
numpy = {int(n): float(g) for n, g in (l.split() for l in open(os.path.join(work, 'numpy.txt')))}
ms = {}
for f in sorted(os.listdir(work)):
    if f.endswith('.json'):
        for r in json.load(open(os.path.join(work, f))):
            ms[(r['params']['path'], int(r['params']['n']))] = r['primaryMetric']['score']
import numpy as np
print(f"# numpy {np.__version__}; JMH AverageTime ms/op converted to GFLOP/s = 2n^3/t")
for path in ('vector', 'ejml'):
    for n in sizes:
        if (path, n) not in ms:
            sys.exit(f"gemm-vs-numpy: no JMH result for path={path} n={n}")
        g = 2 * n**3 / (ms[(path, n)] * 1e-3) / 1e9
        print(f"gemm path={path} n={n} symbiont_gflops={g:.1f} numpy_gflops={numpy[n]:.1f} ratio={g / numpy[n]:.2f}")
PY
