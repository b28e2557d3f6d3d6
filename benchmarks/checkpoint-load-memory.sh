#!/usr/bin/env bash
# The Java heap it takes to load a 512 MiB safetensors checkpoint (CheckpointLoadMemoryReport).
#
#   benchmarks/checkpoint-load-memory.sh      # builds, then per checkpoint prints the report's line and
#   min -Xmx 521m for load .../one.safetensors # the smallest -Xmx (to 8 MiB) at which the load succeeds
#
# Checkpoints (written by a separate JVM): float32 as one (1024, 131072) tensor, float32 as 32
# (1024, 4096) tensors, and bfloat16 as 32 (1024, 4096) tensors loaded as float32. The report's
# peak runs with -Xmx4g. JAR=path/to/benchmarks.jar measures another build (nothing is built then).
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/java-env.sh
JAVA="$JAVA_HOME/bin/java"

if [ -z "${JAR:-}" ]; then
  LOCK=(); command -v flock >/dev/null && LOCK=(flock /tmp/symbiont-mvn.lock)
  "${LOCK[@]}" mvn -o -q -B -ntp -DskipTests -pl benchmarks -am package >&2
  JAR=benchmarks/target/benchmarks.jar
fi

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# The report's own line; its stderr (JVM and GEMM notices) only when it fails.
report() { local heap=$1; shift
  "$JAVA" --add-modules jdk.incubator.vector "$heap" -cp "$JAR" dev.symbiont.bench.CheckpointLoadMemoryReport "$@" \
    2>"$work/stderr" || { cat "$work/stderr" >&2; return 1; }; }

report -Xmx3g write "$work/one.safetensors" 512 1 | grep '^wrote'
report -Xmx3g write "$work/many.safetensors" 512 32 | grep '^wrote'
report -Xmx3g write "$work/bf16.safetensors" 256 32 bfloat16 | grep '^wrote'

for load in "$work/one.safetensors" "$work/many.safetensors" "$work/bf16.safetensors float32"; do
  # shellcheck disable=SC2086 # the optional dtype is a second word on purpose
  report -Xmx4g load $load | grep '^load'
  lo=64; hi=2048
  while [ $((hi - lo)) -gt 8 ]; do
    mid=$(( (lo + hi) / 2 ))
    # shellcheck disable=SC2086
    if report "-Xmx${mid}m" load $load >/dev/null 2>&1; then hi=$mid; else lo=$mid; fi
  done
  echo "min -Xmx ${hi}m for load $load"
done
