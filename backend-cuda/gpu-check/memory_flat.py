"""Reads nvidia-smi's memory.used samples (MiB, one per line) taken while the training ran and says whether
device memory stayed flat after warm-up: the samples of the run's last two thirds may not exceed the sample
at the end of its first third by more than 64 MiB (the caching allocator reserves its working set while
warming up, then reuses it; a leak grows every step)."""
import sys

samples = [int(l.strip()) for l in open(sys.argv[1]) if l.strip().isdigit()]
baseline = samples[0] if samples else 0
active = [s for s in samples if s > baseline + 16]
if len(active) < 6:
    print(f"memory: too few samples while training ({len(active)} of {len(samples)})")
    sys.exit(0)
third = len(active) // 3
warm, rest = active[third], active[third:]
growth = max(rest) - warm
print(f"memory.used MiB: idle {baseline}, after warm-up {warm}, max after {max(rest)}, last {active[-1]}, "
      f"{len(active)} samples while training")
print("device memory flat after warm-up (growth <= 64 MiB):", "yes" if growth <= 64 else f"NO (+{growth} MiB)")
