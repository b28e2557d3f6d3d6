#!/usr/bin/env python3
"""The PyTorch peer of GptBlockBenchmark: the same GPT block (pre-LayerNorm, fused qkv with
biases, 4 heads, causal attention, GELU MLP 256 -> 1024 -> 256) on a (8, seq, 256) batch,
forward alone and forward + backward of the sum of its output, on the CPU with 2 threads.
Prints the median over timed runs after a warm-up, in ms.

Run: python3 benchmarks/gpt-block-torch.py [seq ...]
(Without Python: benchmarks/torch-peer.sh runs the same block in libtorch, in one JVM with Symbiont.)
"""
import math
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d=256, heads=4, ffn=1024):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, ffn)
        self.out = nn.Linear(ffn, d)

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if hasattr(F, "scaled_dot_product_attention"):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # PyTorch 1.x: the materialised form
            s = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
            s = s.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
            y = s.softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.out(F.gelu(self.fc(self.norm2(x))))


def median_ms(fn, warmup=5, runs=15):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    torch.set_num_threads(2)
    torch.manual_seed(0)
    block = Block()
    for seq in [int(s) for s in sys.argv[1:]] or [256, 1024]:
        x = torch.randn(8, seq, 256, requires_grad=True)

        def forward():
            with torch.no_grad():
                block(x)

        def step():
            block(x).sum().backward()
            block.zero_grad()
            x.grad = None

        print(f"torch {torch.__version__} threads={torch.get_num_threads()} seq={seq} "
              f"forward_ms={median_ms(forward):.1f} forward_backward_ms={median_ms(step):.1f}")


if __name__ == "__main__":
    main()
