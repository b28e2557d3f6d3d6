"""How the *_torch.py scripts time a piece of work on the GPU: CUDA events around `iterations` calls after
`warmups`, milliseconds per call."""
import torch


def timed(work, warmups=3, iterations=10):
    for _ in range(warmups):
        work()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iterations):
        work()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iterations
