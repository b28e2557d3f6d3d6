#!/usr/bin/env python3
"""Joins ConvBenchmark's and conv_torch.py's lines: milliseconds of both and torch / symbiont for each
(above 1: symbiont is faster). usage: conv_table.py SYMBIONT_OUT TORCH_OUT"""
import sys

from side_by_side import ratio, read

KEY = lambda p: (p[1], int(p[2]), int(p[3]))


ours, our_notes = read(sys.argv[1], "symbiont", 6, KEY)
torch, torch_notes = read(sys.argv[2], "torch", 6, KEY)
for note in our_notes + torch_notes:
    print(note)
print(f"{'what':9} {'C/batch':>7} {'H/size':>6} {'ms':>9} {'torch':>9} {'ratio':>5} {'fwd+bwd ms':>10} {'torch':>9} {'ratio':>5}")
for key in sorted(set(ours) | set(torch)):
    s, t = ours.get(key, (None, None)), torch.get(key, (None, None))
    print(f"{key[0]:9} {key[1]:>7} {key[2]:>6} {s[0] or '-':>9} {t[0] or '-':>9} {ratio(t[0], s[0]):>5} "
          f"{s[1] or '-':>10} {t[1] or '-':>9} {ratio(t[1], s[1]):>5}")
