#!/usr/bin/env python3
"""Joins MoeLayerBenchmark's and moe_torch.py's lines: for each layer the forward and forward+backward
milliseconds of both, Symbiont's MoE layer (with its own grouped kernels, and with cuBLAS's grouped GEMM)
over its dense FFN of equal active parameters (the target: at most 1.3), and the Mixtral block's time over Symbiont's (above 1: Symbiont is faster; the target: above 1).
usage: moe_table.py SYMBIONT_OUT TORCH_OUT"""
import sys

from side_by_side import is_note, lines, ratio


def read(path):
    """{(layer, E): (forward ms, forward+backward ms)} from the 10-field lines, and the notes."""
    rows = {}
    text, notes = lines(path)
    for line in text:
        parts = line.split()
        if len(parts) == 10 and parts[1].isdigit():
            rows[(parts[0], int(parts[1]))] = (float(parts[6]), float(parts[7]))
        elif is_note(line):
            notes.append(line.rstrip())
    return rows, notes


ours, our_notes = read(sys.argv[1])
torch, torch_notes = read(sys.argv[2])
for note in our_notes + torch_notes:
    print(note)
none = (None, None)
dense, torch_dense = ours.get(("dense", 1), none), torch.get(("torch-dense", 1), none)
print(f"dense FFN: symbiont {dense[0] or '-'} / {dense[1] or '-'} ms, torch {torch_dense[0] or '-'} / {torch_dense[1] or '-'} ms "
      "(fwd / fwd+bwd)")
print(f"{'E':>7} {'fwd ms':>8} {'÷dense':>6} {'mixtral':>8} {'ratio':>5} {'fwd+bwd':>8} {'÷dense':>6} {'mixtral':>8} {'ratio':>5}")
print("(rows 'blas': the grouped GEMMs as cuBLAS's grouped GEMM, -Dsymbiont.cuda.moeGemm=blas)")
for e in sorted({e for (layer, e) in ours if layer == "moe"} | {e for (layer, e) in torch if layer == "mixtral"}):
    t = torch.get(("mixtral", e), none)
    for layer, label in (("moe", f"{e}"), ("moe-blas", f"{e} blas")):
        s = ours.get((layer, e), none)
        if layer == "moe-blas" and s == none:
            continue
        print(f"{label:>7} {s[0] or '-':>8} {ratio(s[0], dense[0]):>6} {t[0] or '-':>8} {ratio(t[0], s[0]):>5} "
              f"{s[1] or '-':>8} {ratio(s[1], dense[1]):>6} {t[1] or '-':>8} {ratio(t[1], s[1]):>5}")
