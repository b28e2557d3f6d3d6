#!/usr/bin/env bash
# Compiles the CUDA kernels (src/main/cuda/<group>.cu) into the images the jar carries:
#   <group>.ptx    PTX for compute_80, its .version lowered to the lowest PTX ISA that ptxas
#                  accepts for it (CUDA 12 drivers load ISA <= 8.0; nvcc 13 writes 9.0)
#   <group>.fatbin cubins for sm_80, sm_86, sm_89 and sm_90 plus that PTX, compressed
# The outputs are committed, so a build without nvcc has them; KernelArtifactsTest rebuilds them
# into a temporary folder and fails when the committed ones differ. nvcc, ptxas and fatbinary
# give the same bytes for the same input, so "differ" means "stale".
#
# Usage: backend-cuda/build-kernels.sh [output-folder]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$here/src/main/cuda
out=${1:-$here/src/main/resources/dev/symbiont/cuda/kernels}
archs=(80 86 89 90)
isa_candidates=(7.0 7.1 7.2 7.3 7.4 7.5 7.6 7.7 7.8 8.0 8.1 8.2 8.3 8.4 8.5 8.6 8.7 8.8 9.0)
# Per-group nvcc flags: random.cu keeps IEEE double arithmetic bit-exact (no fused multiply-add).
declare -A extra_flags=([random]="-fmad=false")

for tool in nvcc ptxas fatbinary; do
    command -v "$tool" >/dev/null || { echo "build-kernels.sh: $tool is not on the PATH" >&2; exit 2; }
done
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for cu in "$src"/*.cu; do
    group=$(basename "$cu" .cu)
    nvcc -ptx -arch=compute_80 -I"$src" ${extra_flags[$group]:-} -o "$work/$group.nvcc.ptx" "$cu"
    lowered=""
    for isa in "${isa_candidates[@]}"; do
        sed "s/^\.version [0-9.]*$/.version $isa/" "$work/$group.nvcc.ptx" > "$work/$group.ptx"
        if ptxas --gpu-name sm_80 -o /dev/null "$work/$group.ptx" 2>/dev/null; then lowered=$isa; break; fi
    done
    [ -n "$lowered" ] || { echo "build-kernels.sh: ptxas rejects $group.ptx at every ISA version" >&2; exit 1; }
    images=()
    for sm in "${archs[@]}"; do
        ptxas --gpu-name "sm_$sm" -o "$work/$group.sm_$sm.cubin" "$work/$group.ptx"
        images+=("--image3=kind=elf,sm=$sm,file=$work/$group.sm_$sm.cubin")
    done
    images+=("--image3=kind=ptx,sm=80,file=$work/$group.ptx")
    fatbinary --create="$work/$group.fatbin" -64 --compress-all "${images[@]}"
    cp "$work/$group.ptx" "$work/$group.fatbin" "$out/"
    echo "$group: PTX ISA $lowered, cubins for sm_$(IFS=,; echo "${archs[*]}" | sed "s/,/, sm_/g")"
done
