"""Joins AttentionBenchmark's and attention_torch.py's lines into one table: forward and forward+backward
milliseconds of both and the ratio torch/symbiont of each (above 1: symbiont is faster)."""
import sys

from side_by_side import ratio, read

KEY = lambda p: (p[1], p[2], int(p[3]))


ours, our_notes = read(sys.argv[1], "symbiont", 8, KEY)
torch, torch_notes = read(sys.argv[2], "torch", 8, KEY)
for note in our_notes + torch_notes:
    print(note)
print(f"{'precision':9} {'mask':6} {'seq':>5} {'fwd ms':>9} {'torch':>9} {'ratio':>5} {'fwd+bwd ms':>10} {'torch':>9} {'ratio':>5}")
for key in sorted(set(ours) | set(torch), key=lambda k: (k[0] != "fp32", k[1], k[2])):
    s, t = ours.get(key, (None, None)), torch.get(key, (None, None))
    print(f"{key[0]:9} {key[1]:6} {key[2]:>5} {s[0] or '-':>9} {t[0] or '-':>9} {ratio(t[0], s[0]):>5} "
          f"{s[1] or '-':>10} {t[1] or '-':>9} {ratio(t[1], s[1]):>5}")
