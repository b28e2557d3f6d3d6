"""torch.nn.functional.scaled_dot_product_attention on the same GPU and the same cases as AttentionBenchmark:
(batch 4, heads 16, seq, head_dim 128), float32 and bf16, causal and not, the forward alone and the forward
with its backward; CUDA events over 3 calls after 1 warm-up. torch picks its kernel (FlashAttention-2 for
bf16, memory-efficient attention for float32). One line per case, AttentionBenchmark's format:
torch <precision> <causal|full> <seq> <forward ms> <forward+backward ms> <forward TFLOP/s> <forward+backward TFLOP/s>."""
import sys

import torch
import torch.nn.functional as F

from torch_timing import timed

BATCH, HEADS, HEAD_DIM, WARMUPS, ITERATIONS = 4, 16, 128, 1, 3
seqs = [int(a) for a in sys.argv[1:]] or [1024, 2048, 4096, 8192, 16384]


print(f"# torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
for precision in ("fp32", "bf16"):
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    for causal in (False, True):
        for seq in seqs:
            g = torch.Generator(device="cuda").manual_seed(42)
            q, k, v = (torch.randn(BATCH, HEADS, seq, HEAD_DIM, device="cuda", generator=g, dtype=dtype).requires_grad_()
                       for _ in range(3))
            grad = torch.randn(BATCH, HEADS, seq, HEAD_DIM, device="cuda", generator=g, dtype=dtype)
            with torch.no_grad():
                forward_ms = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), WARMUPS, ITERATIONS)
            both_ms = timed(lambda: torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                                     (q, k, v), grad), WARMUPS, ITERATIONS)
            pairs = seq * (seq + 1) / 2 if causal else seq * seq
            flops = 4 * BATCH * HEADS * pairs * HEAD_DIM
            print(f"torch {precision} {'causal' if causal else 'full'} {seq} {forward_ms:.3f} {both_ms:.3f} "
                  f"{flops / (forward_ms * 1e-3) / 1e12:.1f} {3.5 * flops / (both_ms * 1e-3) / 1e12:.1f}")
            del q, k, v, grad
            torch.cuda.empty_cache()
