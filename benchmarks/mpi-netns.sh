#!/usr/bin/env bash
# The all-reduce across a network: two network namespaces joined by a veth pair, one rank in each,
# TCP only; then the fitted alpha/beta of the all-reduce and a model of scaling at 8 .. 64 ranks.
#
#   benchmarks/mpi-netns.sh        # as root (ip netns); run benchmarks/mpi-scaling.sh first for the model's compute times
#
# Namespaces symbiont-mpi-a (10.77.0.1/24) and symbiont-mpi-b (10.77.0.2/24), joined by the veth
# pair symb-veth-a/symb-veth-b, are created here and deleted on exit. mpirun runs in the first;
# the hostfile names the two hosts by IP (slots=1 each), and its rsh agent (a script here)
# starts the daemon of 10.77.0.2 with `ip netns exec symbiont-mpi-b`. Transports: TCP only,
# over the veth (--mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24, and the same for the
# runtime's own oob_tcp). Runs the C peer's sweep and MpiAllReduceReport's (ffm and tensor rows),
# prints the bytes the veth carried, trains the GPT across the link (DataParallelScalingReport,
# solo,local,bucketed,single alternated), and ends with ScalingModelReport: the fitted t = alpha + beta*n
# of each path and the predicted weak-scaling efficiency of the shipped models at 8 .. 64 ranks
# on the measured link and on 10 and 100 Gb/s links (a model, not a measurement; it reads the
# one-rank step times from benchmarks/target/mpi-scaling.txt).
# Env: MAX_BYTES (67108864), TRAIN=0 to skip the training run, WARMUP (3), STEPS (9), NO_BUILD=1.
. "$(dirname "$0")/mpi-common.sh"

[ "$(id -u)" = 0 ] || { echo "$0: needs root for ip netns" >&2; exit 2; }
command -v ip >/dev/null || { echo "$0: needs iproute2 (ip)" >&2; exit 2; }
MAX_BYTES=${MAX_BYTES:-67108864}
NS_A=symbiont-mpi-a NS_B=symbiont-mpi-b VETH_A=symb-veth-a VETH_B=symb-veth-b IP_A=10.77.0.1 IP_B=10.77.0.2

work=$(mktemp -d)
cleanup() {
  ip netns del "$NS_A" 2>/dev/null || true
  ip netns del "$NS_B" 2>/dev/null || true   # deleting a namespace deletes its end of the veth, and so the pair
  rm -rf "$work"
}
trap cleanup EXIT
for ns in "$NS_A" "$NS_B"; do
  if ip netns list | grep -qw "$ns"; then echo "$0: namespace $ns exists (another run?); delete it with: ip netns del $ns" >&2; exit 2; fi
done

ip netns add "$NS_A"
ip netns add "$NS_B"
ip link add "$VETH_A" type veth peer name "$VETH_B"
ip link set "$VETH_A" netns "$NS_A"
ip link set "$VETH_B" netns "$NS_B"
ip -n "$NS_A" addr add "$IP_A/24" dev "$VETH_A"
ip -n "$NS_B" addr add "$IP_B/24" dev "$VETH_B"
for end in "$NS_A:$VETH_A" "$NS_B:$VETH_B"; do
  ip -n "${end%%:*}" link set lo up
  ip -n "${end%%:*}" link set "${end#*:}" up
done

# mpirun's rsh agent: called as "agent [options] HOST COMMAND...", runs COMMAND in HOST's namespace.
cat > "$work/agent" <<AGENT
#!/bin/sh
while case "\$1" in -*) true;; *) false;; esac; do shift; done
host=\$1; shift
case "\$host" in
  $IP_A) ns=$NS_A;;
  $IP_B) ns=$NS_B;;
  *) echo "mpi-netns agent: unknown host \$host" >&2; exit 1;;
esac
exec ip netns exec "\$ns" sh -c "\$*"
AGENT
chmod +x "$work/agent"
printf '%s slots=1\n%s slots=1\n' "$IP_A" "$IP_B" > "$work/hosts"

MPIRUN=(ip netns exec "$NS_A" mpirun)
NET=(--hostfile "$work/hosts" --map-by node --mca plm_rsh_agent "$work/agent" --mca btl self,tcp
     --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24)
tx_bytes() { ip -n "$NS_A" -s link show "$VETH_A" | awk '/TX:/ { getline; print $1 }'; }

machine
echo "# two namespaces: $NS_A ($IP_A) and $NS_B ($IP_B), veth $VETH_A <-> $VETH_B, btl self,tcp"
before=$(tx_bytes)
"${MPIRUN[@]}" --oversubscribe --bind-to none -np 2 "${MPIRUN_ROOT[@]}" "${NET[@]}" "$C_PEER" "$MAX_BYTES" | tee "$work/sweep"
mpi_java 2 "${NET[@]}" -- dev.symbiont.bench.MpiAllReduceReport "$MAX_BYTES" | tee -a "$work/sweep"
echo "# the veth carried $(( ($(tx_bytes) - before) / 1048576 )) MiB from $IP_A to $IP_B during the sweeps"

if [ "${TRAIN:-1}" = 1 ]; then
  JVM_OPTS+=(-XX:ActiveProcessorCount=1)
  mpi_java 2 "${NET[@]}" -- dev.symbiont.bench.DataParallelScalingReport gpt solo,local,bucketed,single "${WARMUP:-3}" "${STEPS:-9}"
fi

if [ -f benchmarks/target/mpi-scaling.txt ]; then
  "$JAVA" --add-modules jdk.incubator.vector -cp "$JAR" dev.symbiont.bench.ScalingModelReport "$work/sweep" benchmarks/target/mpi-scaling.txt tensor
else
  echo "# no benchmarks/target/mpi-scaling.txt: run benchmarks/mpi-scaling.sh for the scaling model's compute times" >&2
fi
