#!/usr/bin/env bash
# Greedy generation, Symbiont against jlama 0.8.4 (pure-Java Panama path) in one JVM on the same
# random-weight Hugging Face directories, 2 threads each, alternated round by round
# (JlamaCompareReport in benchmarks' tests; jlama is a test-scope dependency).
#
#   benchmarks/jlama-compare.sh                    # 3 rounds of llama-f32 llama-bf16 gpt2-f32 gpt2-bf16
#   benchmarks/jlama-compare.sh 5 llama-f32        # 5 rounds of one model
#   benchmarks/jlama-compare.sh profile gpt2-f32   # Symbiont's profiler table over one generation
#   benchmarks/jlama-compare.sh memory [model ...]  # each engine's peak RSS over one generation, a JVM each
#
# Prints per model the medians of tokens/s end to end (prompt 128, prefill + 256 new tokens) and of the
# decoding steps alone, and Symbiont ÷ jlama. Writes its models (~500 MB each) under $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
. bin/java-env.sh
JAVA="$JAVA_HOME/bin/java"

LOCK=(); command -v flock >/dev/null && LOCK=(flock /tmp/symbiont-mvn.lock)
"${LOCK[@]}" mvn -o -q -B -ntp -pl benchmarks -am process-test-classes >&2

T=benchmarks/target
CP="$T/test-classes:$T/classes:$(cat "$T/test-class-path.txt")"
quiet() { grep -v -e '^WARNING' -e '^SLF4J' -e 'incubat' -e 'GemmSelection' || true; }
REPORT=dev.symbiont.bench.jlama.JlamaCompareReport

if [ "${1:-}" = memory ]; then
  # Peak memory needs a JVM per engine; the same options for both, the smallest round heap the float32 models load in
  shift
  MODELS=("$@"); [ ${#MODELS[@]} -gt 0 ] || MODELS=(llama-f32 llama-bf16 gpt2-f32 gpt2-bf16)
  OPTS=(--add-modules jdk.incubator.vector -XX:+UseG1GC -Xmx1g -cp "$CP")
  for m in "${MODELS[@]}"; do
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/jlama-memory-XXXXXX")
    "$JAVA" --add-modules jdk.incubator.vector -Xmx6g -cp "$CP" $REPORT write "$m" "$DIR" 2>&1 | quiet
    for engine in symbiont jlama; do "$JAVA" "${OPTS[@]}" $REPORT memory "$m" "$engine" "$DIR" 2>&1 | quiet; done
    rm -rf "$DIR"
  done
  exit 0
fi

"$JAVA" --add-modules jdk.incubator.vector -XX:+UseG1GC -Xms6g -Xmx6g -cp "$CP" $REPORT "$@" 2>&1 | quiet
