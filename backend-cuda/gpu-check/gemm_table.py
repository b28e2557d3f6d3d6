"""Joins GemmBenchmark's and gemm_torch.py's lines into one table with the ratio symbiont/torch, and checks
the issue's bar: >= 0.9x of torch.matmul at n >= 4096 in each precision."""
import sys


def read(path, who):
    rows, notes = {}, []
    for line in open(path):
        parts = line.split()
        if len(parts) == 5 and parts[0] == who:
            rows[(parts[1], int(parts[2]))] = float(parts[4])
        elif line.startswith("#") or "Exception" in line or "Error" in line:
            notes.append(line.rstrip())
    return rows, notes


ours, our_notes = read(sys.argv[1], "symbiont")
torch, torch_notes = read(sys.argv[2], "torch")
for note in our_notes + torch_notes:
    print(note)
print(f"{'precision':9} {'n':>5} {'symbiont TFLOP/s':>16} {'torch TFLOP/s':>13} {'ratio':>6}")
bar = []
for key in sorted(set(ours) | set(torch), key=lambda k: (["fp32", "tf32", "bf16"].index(k[0]), k[1])):
    s, t = ours.get(key), torch.get(key)
    ratio = s / t if s and t else None
    print(f"{key[0]:9} {key[1]:>5} {s if s else '-':>16} {t if t else '-':>13} {f'{ratio:.2f}' if ratio else '-':>6}")
    if key[1] >= 4096:
        bar.append(ratio is not None and ratio >= 0.9)
print("GEMM >= 0.9x torch.matmul at n >= 4096:", "yes" if bar and all(bar) else "NO")
