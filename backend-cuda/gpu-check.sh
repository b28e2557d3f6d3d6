#!/usr/bin/env bash
# The CUDA backend on a real GPU, in two steps (run both from the project root):
#
#   backend-cuda/gpu-check.sh prepare   on the build machine: packs .device/ with a jlinked JDK 25, the
#                                       command line's all-in-one jar, the test jars and JUnit's console launcher
#   backend-cuda/gpu-check.sh run       on the GPU machine (.device carried there; no Maven, maybe no JDK):
#                                       (1) the conformance kit on the real `cuda` backend,
#                                       (2) 100 GPT training steps with device memory sampled (flat after warm-up?),
#                                       (3) GEMM fp32/TF32/bf16, n = 1024..8192, through the backend's BLAS route
#                                       next to torch.matmul on the same GPU, (4) NCCL through libnccl.so.2: the
#                                       communicator checks (2 ranks under mpirun with >= 2 GPUs, else 1 rank) and
#                                       an all-reduce bandwidth line; results in $OUT/gpu-check.txt
#   backend-cuda/gpu-check.sh attention on the GPU machine, after prepare, within 8 minutes of its own: the
#                                       attention kernels (batch 4, 16 heads, head_dim 128, seq 1024..16384,
#                                       fp32/bf16, causal or not, forward and forward+backward) next to torch's
#                                       scaled_dot_product_attention (bf16: the tensor-core forward and backward
#                                       of attention_mma.cu and attention_mma_backward.cu); results in $OUT/attention.txt
#   backend-cuda/gpu-check.sh moe       on the GPU machine, after prepare, a device call of its own (about 5 minutes):
#                                       a dropless top-2 MoE layer of 8 and 64 SwiGLU experts (8192 tokens, d 1024,
#                                       forward and forward+backward, fp32) next to the dense SwiGLU FFN of equal
#                                       active parameters and to the Hugging Face Mixtral block in PyTorch; $OUT/moe.txt
#   backend-cuda/gpu-check.sh scan      on the GPU machine, after prepare, within 5 minutes of its own: the scan
#                                       kernels (linear scan block-local vs grid-wide, 4 and 1024 sequences,
#                                       L 2K..64K; selective scan at Mamba-130M/1.4B widths, forward and
#                                       forward+backward, GB/s; Mamba-2's SSD chunked vs as a selective scan at
#                                       Mamba-2-130M widths, L 2K..16K); results in $OUT/scan.txt
#   backend-cuda/gpu-check.sh conv      on the GPU machine, after prepare, within 8 minutes of its own: conv2d 3x3 at
#                                       ResNet-50's stage widths (batch 64, forward and forward+backward, fp32) and a
#                                       ResNet-50 training step (batch 64, 224x224) next to PyTorch (cuDNN); $OUT/conv.txt
#   backend-cuda/gpu-check.sh train     on the GPU machine, after prepare, within 8 minutes of its own: a GPT, a Mamba
#                                       and an MoE GPT (d_model 256, 4 layers) train 100 steps on cuda and on the CPU
#                                       from one seed, eval losses side by side; results in $OUT/train-families.txt
#   backend-cuda/gpu-check.sh gpt-step  on the GPU machine, after prepare: one GPT-2-small training step (batch 8,
#                                       seq 512, fp32 and bf16 autocast) next to the same model in PyTorch eager
#   backend-cuda/gpu-check.sh targets   on the GPU machine, after prepare, one device call of at most 9 minutes: a
#                                       row for each of the issue's targets (attention bf16 at seq 4096/8192, the
#                                       GPT step, the MoE layer and Mixtral, the scans, conv2d and ResNet-50), the
#                                       parts in that order, each cut to what is left of the 9 minutes; $OUT/targets.txt
#
# See backend-cuda/README.md, "On a real GPU".
set -euo pipefail
dir=${DEVICE_DIR:-.device}
here=$(cd "$(dirname "$0")" && pwd)

prepare() {
  . bin/java-env.sh
  flock /tmp/symbiont-mvn.lock mvn -B -ntp -o -q -pl core,backend-cuda,cli -am package -DskipTests
  mkdir -p "$dir"
  cp cli/target/symbiont-cli-*-all.jar "$dir/symbiont-cli-all.jar"
  cp core/target/symbiont-core-*-tests.jar "$dir/core-tests.jar"
  (cd backend-cuda/target/test-classes && "$JAVA_HOME/bin/jar" cf "../../../$dir/backend-cuda-tests.jar" .)
  local junit=junit-platform-console-standalone-1.14.1.jar
  local cached=~/.m2/repository/org/junit/platform/junit-platform-console-standalone/1.14.1/$junit
  if [ -f "$cached" ]; then cp "$cached" "$dir/junit-console.jar"; else
    curl -fsSL -o "$dir/junit-console.jar" "https://repo1.maven.org/maven2/org/junit/platform/junit-platform-console-standalone/1.14.1/$junit"
  fi
  [ -f "$dir/jdk.txz" ] || /work/shared/tools/device-jdk.sh "$dir"
  du -sh "$dir"; ls -l "$dir"
}

run() {
  local out=${OUT:-/tmp/gpu-check}; mkdir -p "$out"
  local report="$out/gpu-check.txt"
  if ! command -v java >/dev/null || ! java -version 2>&1 | grep -q 'version "25'; then
    tar xJf "$dir/jdk.txz" -C /tmp && export PATH=/tmp/jdk/bin:$PATH
  fi
  # The Java side finds the nvidia-cublas wheel itself (CublasLibrarySearch); its folder also goes on the
  # loader's path so libcublas.so.13 finds libcublasLt.so.13 beside it even without an $ORIGIN run path.
  local wheel
  for wheel in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    [ -d "$wheel/nvidia/cu13/lib" ] && export LD_LIBRARY_PATH="$wheel/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
  done
  local cp="$dir/symbiont-cli-all.jar:$dir/backend-cuda-tests.jar:$dir/core-tests.jar"
  # experimental: offer cuda even while its provider reports ops still to come, so the check shows which fail
  local jvm=(--add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Xss4m -XX:+UseG1GC -Dsymbiont.cuda.experimental=true)
  {
    echo "# backend-cuda/gpu-check.sh, $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' || true
    echo "## symbiont backends"
    java "${jvm[@]}" -cp "$cp" dev.symbiont.cli.Main backends 2>&1 || true
  } > "$report"

  echo "## 1. conformance kit on cuda (real device)" >> "$report"
  timeout 200 java "${jvm[@]}" -jar "$dir/junit-console.jar" execute --class-path "$cp" \
      --select-class dev.symbiont.cuda.device.CudaDeviceConformanceTest --reports-dir "$out/junit" \
      --details=summary --disable-banner > "$out/conformance.log" 2>&1 || true
  grep -E "tests (successful|failed|aborted|skipped|found)|containers (failed|aborted)" "$out/conformance.log" >> "$report" || tail -5 "$out/conformance.log" >> "$report"

  echo "## 2. 100 GPT steps on cuda, device memory sampled every 250 ms" >> "$report"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 > "$out/memory.csv" &
  local sampler=$!
  rm -rf /tmp/gpu-check-gpt
  timeout 160 java "${jvm[@]}" -jar "$dir/symbiont-cli-all.jar" train --backend cuda --steps 100 --minutes 2.2 \
      --batch 32 --context 128 --eval-every 50 --out /tmp/gpu-check-gpt > "$out/train.log" 2>&1 || echo "train exited $?" >> "$report"
  kill "$sampler" 2>/dev/null || true
  python3 "$here/gpu-check/memory_flat.py" "$out/memory.csv" >> "$report" || true
  tail -3 "$out/train.log" >> "$report"

  echo "## 3. GEMM: the backend's BLAS route next to torch.matmul (same GPU, same run)" >> "$report"
  timeout 85 java "${jvm[@]}" -cp "$cp" dev.symbiont.cuda.device.GemmBenchmark > "$out/gemm-symbiont.txt" 2>&1 || true
  timeout 50 python3 "$here/gpu-check/gemm_torch.py" > "$out/gemm-torch.txt" 2>&1 || true
  python3 "$here/gpu-check/gemm_table.py" "$out/gemm-symbiont.txt" "$out/gemm-torch.txt" >> "$report" || true

  # NcclLibrary finds the nvidia-nccl wheel (torch's) by itself; 2 ranks need 2 GPUs and Open MPI's mpirun.
  echo "## 4. NCCL via java.lang.foreign: communicator checks and all-reduce bandwidth" >> "$report"
  # the checks assert with JUnit, which the console launcher jar carries
  local nccl=(java "${jvm[@]}" -Dsymbiont.distributed.timeout=PT30S -cp "$cp:$dir/junit-console.jar" dev.symbiont.cuda.device.NcclDeviceCheck /tmp/gpu-check-nccl)
  rm -rf /tmp/gpu-check-nccl
  if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ] && command -v mpirun >/dev/null; then
    timeout 45 mpirun --allow-run-as-root --bind-to none -np 2 "${nccl[@]}" > "$out/nccl.log" 2>&1 || echo "nccl check exited $?" >> "$report"
  else
    timeout 45 "${nccl[@]}" > "$out/nccl.log" 2>&1 || echo "nccl check exited $?" >> "$report"
  fi
  grep -E "^(nccl|checks|FAIL)" "$out/nccl.log" >> "$report" || tail -5 "$out/nccl.log" >> "$report"
  cat "$report"
}

# Java 25 (unpacked from .device where the machine has none), and the classpath (cp) and JVM options (jvm)
# of the device programs, set in the caller's locals.
device_java() {
  if ! command -v java >/dev/null || ! java -version 2>&1 | grep -q 'version "25'; then
    tar xJf "$dir/jdk.txz" -C /tmp && export PATH=/tmp/jdk/bin:$PATH
  fi
  cp="$dir/symbiont-cli-all.jar:$dir/backend-cuda-tests.jar:$dir/core-tests.jar"
  jvm=(--add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Xss4m -XX:+UseG1GC)
}

# versus NAME CLASS JAVA_S TORCH_S TABLE [TABLE_ARGS...]: the device benchmark CLASS (with $bench_args) and
# gpu-check/<NAME with _ for ->_torch.py (same arguments) under their limits, joined by gpu-check/TABLE into $out/NAME.txt.
versus() {
  local name=$1 class=$2 java_s=$3 torch_s=$4 table=$5; shift 5
  local out=${OUT:-/tmp/gpu-check}; mkdir -p "$out"
  local cp jvm
  device_java
  # shellcheck disable=SC2086 # the arguments are words
  timeout "$java_s" java "${jvm[@]}" -cp "$cp" "dev.symbiont.cuda.device.$class" ${bench_args:-} > "$out/$name-symbiont.txt" 2>&1 \
      || echo "# $class exited $?" >> "$out/$name-symbiont.txt"
  # shellcheck disable=SC2086
  timeout "$torch_s" python3 "$here/gpu-check/${name//-/_}_torch.py" ${bench_args:-} > "$out/$name-torch.txt" 2>&1 \
      || echo "# ${name//-/_}_torch.py exited $?" >> "$out/$name-torch.txt"
  python3 "$here/gpu-check/$table" "$out/$name-symbiont.txt" "$out/$name-torch.txt" "$@" > "$out/$name.txt" || true
}

# Each its own device call: with run's parts they would not fit one 10-minute call.
attention() { versus attention AttentionBenchmark 300 150 attention_table.py; cat "${OUT:-/tmp/gpu-check}/attention.txt"; }
# The MoE layer against the dense FFN of equal active parameters and the Mixtral block in PyTorch.
moe() { versus moe MoeLayerBenchmark 200 100 moe_table.py; cat "${OUT:-/tmp/gpu-check}/moe.txt"; }
# One GPT training step (GptStepBenchmark) next to the same model in PyTorch eager.
gpt_step() { versus gpt-step GptStepBenchmark 150 90 pair_table.py batch seq "step ms" -; cat "${OUT:-/tmp/gpu-check}/gpt-step.txt"; }
# conv2d 3x3 at ResNet-50's stage widths and a ResNet-50 training step, next to PyTorch (cuDNN).
conv() { versus conv ConvBenchmark 300 150 pair_table.py C/batch H/size ms "fwd+bwd ms"; cat "${OUT:-/tmp/gpu-check}/conv.txt"; }

# The scan kernels' timings, a command of its own too (ScanBenchmark's javadoc says what each line holds).
scan() {
  local out=${OUT:-/tmp/gpu-check}; mkdir -p "$out"
  local cp jvm
  device_java
  timeout 280 java "${jvm[@]}" -cp "$cp" dev.symbiont.cuda.device.ScanBenchmark > "$out/scan.txt" 2>&1 || echo "scan benchmark exited $?" >> "$out/scan.txt"
  cat "$out/scan.txt"
}

# GPT, Mamba and MoE GPT at d_model 256 train 100 steps on cuda and on the CPU from one seed; their
# eval losses every 10 steps side by side (loss_compare.py). Six runs of at most 80 s.
train() {
  local out=${OUT:-/tmp/gpu-check}; mkdir -p "$out"
  local cp jvm arch backend
  device_java
  : > "$out/train-families.txt"
  for arch in gpt mamba moe; do
    for backend in cuda cpu; do
      rm -rf "/tmp/gpu-check-$arch-$backend"
      timeout 80 java "${jvm[@]}" -Dsymbiont.cuda.experimental=true -jar "$dir/symbiont-cli-all.jar" train --arch "$arch" \
          --backend "$backend" --steps 100 --minutes 1.2 --eval-every 10 --batch 32 --context 128 --d-model 256 --layers 4 \
          --out "/tmp/gpu-check-$arch-$backend" > "$out/train-$arch-$backend.log" 2>&1 \
          || echo "$arch on $backend exited $?" >> "$out/train-families.txt"
    done
    python3 "$here/gpu-check/loss_compare.py" "$arch" "$out/train-$arch-cuda.log" "$out/train-$arch-cpu.log" >> "$out/train-families.txt" || true
  done
  cat "$out/train-families.txt"
}

# Every target's row in one device call: each part's limits are cut to what is left of 540 s, and a part
# that would start with under 30 s left is skipped and named.
targets() {
  local out=${OUT:-/tmp/gpu-check}; mkdir -p "$out"
  local report="$out/targets.txt" end=$((SECONDS + 540)) cp jvm
  { echo "# backend-cuda/gpu-check.sh targets, $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true; } > "$report"
  left() { echo $((end - SECONDS)); }
  capped() { local l; l=$(left); echo $(($1 < l ? $1 : l)); }
  # target TITLE NAME CLASS JAVA_S TORCH_S TABLE [TABLE_ARGS...]: versus under the cut limits, its table into the report
  target() {
    local title=$1 name=$2 class=$3 java_s=$4 torch_s=$5; shift 5
    echo "## $title" >> "$report"
    if [ "$(left)" -lt 30 ]; then echo "# skipped: $(left) s left" >> "$report"; return; fi
    versus "$name" "$class" "$(capped "$java_s")" "$(capped "$torch_s")" "$@"
    cat "$out/$name.txt" >> "$report"
  }
  bench_args="4096 8192" target "attention (bf16 forward >= 0.8x SDPA at seq >= 4096, backward >= 0.7x)" \
      attention AttentionBenchmark 150 60 attention_table.py
  target "GPT training step (>= 0.8x PyTorch eager)" gpt-step GptStepBenchmark 120 60 pair_table.py batch seq "step ms" -
  target "MoE layer (<= 1.3x the dense FFN, faster than Mixtral's block)" moe MoeLayerBenchmark 120 60 moe_table.py
  echo "## scans (selective scan >= 60% of the bandwidth it moves: H100 SXM 3.35 TB/s)" >> "$report"
  if [ "$(left)" -ge 30 ]; then
    device_java
    timeout "$(capped 120)" java "${jvm[@]}" -cp "$cp" dev.symbiont.cuda.device.ScanBenchmark 2>&1 | grep -v '^WARNING' >> "$report" || true
  else echo "# skipped: $(left) s left" >> "$report"; fi
  target "conv2d 3x3 (>= 0.7x cuDNN) and a ResNet-50 step" conv ConvBenchmark 120 60 pair_table.py C/batch H/size ms "fwd+bwd ms"
  cat "$report"
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  attention) attention ;;
  moe) moe ;;
  scan) scan ;;
  conv) conv ;;
  train) train ;;
  gpt-step) gpt_step ;;
  targets) targets ;;
  *) echo "usage: $0 prepare|run|attention|moe|scan|conv|train|gpt-step|targets" >&2; exit 2 ;;
esac
