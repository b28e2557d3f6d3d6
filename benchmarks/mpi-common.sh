# Sourced by the MPI benchmark scripts (mpi-allreduce.sh, mpi-scaling.sh, mpi-netns.sh).
#
# The whole script runs holding the shared Maven lock (/tmp/symbiont-mvn.lock), so no build
# runs beside the measurement on a shared machine; it builds the benchmarks jar and the C peer
# (NO_BUILD=1 skips both when they are built), and defines:
#   mpi_java NP [mpirun options --] MAIN ARGS   the launch of MpiRun's command line:
#       mpirun --oversubscribe --bind-to none -np NP [--allow-run-as-root] JAVA
#              --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector $JVM_OPTS -cp JAR MAIN ARGS
#   MPIRUN        the mpirun command mpi_java starts (a script may prefix it, e.g. with ip netns exec)
#   MPIRUN_ROOT   (--allow-run-as-root) when running as root, which mpirun otherwise refuses
#   C_PEER        the C all-reduce program built from benchmarks/mpi/allreduce.c with mpicc -O2
if [ -z "${SYMBIONT_MVN_LOCK_HELD:-}" ] && command -v flock >/dev/null; then
  export SYMBIONT_MVN_LOCK_HELD=1
  exec flock /tmp/symbiont-mvn.lock "$0" "$@"
fi
set -euo pipefail
cd "$(dirname "$0")/.."

. bin/java-env.sh
JAVA="$JAVA_HOME/bin/java"
JAR=$PWD/benchmarks/target/benchmarks.jar
C_PEER=$PWD/benchmarks/target/mpi/allreduce
command -v mpirun >/dev/null || { echo "$0: mpirun not found: install openmpi-bin libopenmpi-dev" >&2; exit 2; }

if [ "${NO_BUILD:-0}" != 1 ] || [ ! -f "$JAR" ] || [ ! -x "$C_PEER" ]; then
  mvn -B -ntp -o -q -DskipTests -pl benchmarks -am package >&2
  mkdir -p "$(dirname "$C_PEER")"
  mpicc -O2 -o "$C_PEER" benchmarks/mpi/allreduce.c
fi

MPIRUN_ROOT=(); [ "$(id -u)" = 0 ] && MPIRUN_ROOT=(--allow-run-as-root)
JVM_OPTS=(${JVM_OPTS:-})
MPIRUN=(mpirun)

# mpi_java NP [mpirun options --] MAIN ARGS...
mpi_java() {
  local np=$1; shift
  local opts=()
  if [[ " $* " == *" -- "* ]]; then
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
  fi
  "${MPIRUN[@]}" --oversubscribe --bind-to none -np "$np" "${MPIRUN_ROOT[@]}" "${opts[@]}" \
    "$JAVA" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector "${JVM_OPTS[@]}" -cp "$JAR" "$@"
}

# The machine, for the record: CPU family/model, load, date.
machine() {
  echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | xargs)" \
       "model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(mpirun --version | head -1);" \
       "$(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
