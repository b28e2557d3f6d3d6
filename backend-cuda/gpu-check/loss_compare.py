#!/usr/bin/env python3
"""Eval losses of one model trained on cuda and on the CPU from one seed, side by side.

usage: loss_compare.py ARCH CUDA_LOG CPU_LOG
Reads the "step N: eval loss X" lines `symbiont train --eval-every` prints and writes one line per
evaluated step (both losses and their relative difference), then the largest difference.
"""
import re
import sys

EVAL = re.compile(r"^step (\d+): eval loss ([0-9.eE+-]+|NaN|Infinity)")


def losses(path):
    out = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = EVAL.match(line.strip())
                if m:
                    out[int(m.group(1))] = float(m.group(2))
    except OSError as e:
        print(f"  cannot read {path}: {e}")
    return out


def main():
    arch, cuda_log, cpu_log = sys.argv[1:4]
    cuda, cpu = losses(cuda_log), losses(cpu_log)
    steps = sorted(set(cuda) & set(cpu))
    print(f"### {arch}: eval loss, cuda vs cpu (same seed)")
    if not steps:
        print(f"  no common evaluated steps (cuda {sorted(cuda)}, cpu {sorted(cpu)})")
        return
    worst = 0.0
    for s in steps:
        rel = abs(cuda[s] - cpu[s]) / max(abs(cpu[s]), 1e-12)
        worst = max(worst, rel)
        print(f"  step {s:4d}  cuda {cuda[s]:.4f}  cpu {cpu[s]:.4f}  rel {rel:.2e}")
    print(f"  largest relative difference {worst:.2e} over {len(steps)} evaluations")


if __name__ == "__main__":
    main()
