#!/usr/bin/env python3
"""Joins a device benchmark's and its *_torch.py script's `<who> <what> <key> <key> <ms> <ms>` lines
(ConvBenchmark and conv_torch.py, GptStepBenchmark and gpt_step_torch.py): milliseconds of both and
torch / symbiont for each (above 1: symbiont is faster); a variant's row (`conv-implicit`) is compared with
torch's row of its base name (`conv`). usage: pair_table.py SYMBIONT_OUT TORCH_OUT
[TITLE_OF_KEY_1 TITLE_OF_KEY_2 TITLE_OF_MS_1 TITLE_OF_MS_2]"""
import sys

from side_by_side import ratio, read

KEY = lambda p: (p[1], int(p[2]), int(p[3]))


ours, our_notes = read(sys.argv[1], "symbiont", 6, KEY)
torch, torch_notes = read(sys.argv[2], "torch", 6, KEY)
first, second, ms, ms2 = (sys.argv[3:7] + ["key 1", "key 2", "ms", "ms"][len(sys.argv[3:7]):])
for note in our_notes + torch_notes:
    print(note)
print(f"{'what':13} {first:>7} {second:>6} {ms:>9} {'torch':>9} {'ratio':>5} {ms2:>10} {'torch':>9} {'ratio':>5}")
for key in sorted(set(ours) | set(torch)):
    s = ours.get(key, (None, None))
    t = torch.get(key) or torch.get((key[0].split("-")[0],) + key[1:], (None, None))
    print(f"{key[0]:13} {key[1]:>7} {key[2]:>6} {s[0] or '-':>9} {t[0] or '-':>9} {ratio(t[0], s[0]):>5} "
          f"{s[1] or '-':>10} {t[1] or '-':>9} {ratio(t[1], s[1]):>5}")
