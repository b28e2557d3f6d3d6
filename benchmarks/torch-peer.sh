#!/usr/bin/env bash
# Symbiont against PyTorch 2.7.1 (PyTorch's own libtorch CPU build: MKL, oneDNN), both in one JVM,
# 2 threads each, alternated round by round so both see the same minute of a noisy machine.
#
#   benchmarks/torch-peer.sh                  # GPT block at seq 256, then attention 512 ... 4096
#   benchmarks/torch-peer.sh block 1024 6 3   # one workload: block|attention SEQ [ROUNDS [REPS]]
#
# Prints one line per workload (median over rounds of each round's median, every round's median)
# and one per pair (median of the per-round ratios, rounds Symbiont was faster). Downloads ~550 MB
# of libtorch from Maven Central the first time (the torch-peer profile; not in the default build).
set -euo pipefail
cd "$(dirname "$0")/.."

. bin/java-env.sh
JAVA="$JAVA_HOME/bin/java"

LOCK=(); command -v flock >/dev/null && LOCK=(flock /tmp/symbiont-mvn.lock)
"${LOCK[@]}" mvn -q -B -ntp -Ptorch-peer -DskipTests -pl benchmarks-torch -am install >&2

T=benchmarks-torch/target
CP="$T/torch-native:$T/classes:$(cat "$T/class-path.txt")"
peer() { "$JAVA" --add-modules jdk.incubator.vector -XX:+UseG1GC -Xms6g -Xmx6g -XX:+AlwaysPreTouch -cp "$CP" \
           dev.symbiont.bench.torch.TorchPeer "$@" 2>&1 | grep -v -e '^WARNING' -e 'incubat' -e 'GemmSelection'; }

if [ $# -gt 0 ]; then
  peer "$@"
else
  peer block 256 15 7
  for seq in 512 1024 2048 4096; do peer attention "$seq" 10 $(( seq >= 2048 ? 5 : 9 )); done
fi
