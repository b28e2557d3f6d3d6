#!/usr/bin/env python3
"""PyTorch's side of MoeLayerBenchmark on the same GPU: the Hugging Face Mixtral sparse MoE block
(transformers' MixtralSparseMoeBlock when transformers is installed, else the same computation written
here: a bias-free router, softmax, top-k renormalised, a loop over the experts gathering their tokens,
w2(silu(w1 x) * w3 x) scaled by the routing weight and index_add-ed back) with E = 8 and 64 experts of
hidden ceil(8d / 3k), top-2, and the dense SwiGLU FFN of hidden k * that, over T tokens of width d,
float32 with TF32 off; the forward without gradients and the forward with its backward. Lines in
MoeLayerBenchmark's format: `<layer> <E> <k> <T> <d> <hidden> <fwd ms> <fwd+bwd ms> <fwd ratio to dense>
<fwd+bwd ratio to dense>`, layer `torch-dense` or `mixtral`. Arguments: T (8192) and d (1024)."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_timing import timed

torch.backends.cuda.matmul.allow_tf32 = False
TOP_K = 2


class SwiGlu(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.w1, self.w3 = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoe(nn.Module):
    """Mixtral's routing: softmax over all experts, the top-k renormalised, each expert on its tokens."""

    def __init__(self, d, hidden, experts):
        super().__init__()
        self.gate = nn.Linear(d, experts, bias=False)
        self.experts = nn.ModuleList(SwiGlu(d, hidden) for _ in range(experts))

    def forward(self, x):
        weights = F.softmax(self.gate(x), dim=-1, dtype=torch.float)
        weights, chosen = torch.topk(weights, TOP_K, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        hits = F.one_hot(chosen, num_classes=len(self.experts)).permute(2, 1, 0)      # (E, k, T)
        for e, expert in enumerate(self.experts):
            slot, token = torch.where(hits[e])
            if token.numel():
                out.index_add_(0, token, expert(x[token]) * weights[token, slot, None])
        return out


def mixtral(d, hidden, experts):
    """The block as (a function of x (T, d), the module holding its parameters, which block it is)."""
    try:
        from transformers import MixtralConfig
        from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock
        block = MixtralSparseMoeBlock(MixtralConfig(hidden_size=d, intermediate_size=hidden, num_local_experts=experts,
                                                    num_experts_per_tok=TOP_K))
    except Exception as e:  # not installed, or a version whose block is built differently
        block = SparseMoe(d, hidden, experts)
        return block, block, f"this script's copy of the block ({type(e).__name__}: {e})"

    def apply(x):
        out = block(x.unsqueeze(0))
        return (out[0] if isinstance(out, tuple) else out).squeeze(0)   # older versions add the router logits

    return apply, block, "transformers' MixtralSparseMoeBlock"


def times(layer, parameters, x, grad):
    def forward():
        with torch.no_grad():
            layer(x)

    def both():
        layer(x).backward(grad)
        for p in parameters:
            p.grad = None
        x.grad = None

    return timed(forward), timed(both)


def main():
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    d = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    hidden = (8 * d + 3 * TOP_K - 1) // (3 * TOP_K)
    dev = torch.device("cuda")
    torch.manual_seed(42)
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}, tokens {tokens}, d {d}")
    x = torch.randn(tokens, d, device=dev, requires_grad=True)
    grad = torch.randn(tokens, d, device=dev)
    dense_layer = SwiGlu(d, TOP_K * hidden).to(dev)
    dense = times(dense_layer, list(dense_layer.parameters()), x, grad)
    print(f"torch-dense 1 {TOP_K} {tokens} {d} {TOP_K * hidden} {dense[0]:.3f} {dense[1]:.3f} 1.00 1.00")
    for experts in (8, 64):
        layer, module, what = mixtral(d, hidden, experts)
        module.to(dev)
        print(f"# mixtral E {experts}: {what}")
        ms = times(layer, list(module.parameters()), x, grad)
        print(f"mixtral {experts} {TOP_K} {tokens} {d} {hidden} {ms[0]:.3f} {ms[1]:.3f} "
              f"{ms[0] / dense[0]:.2f} {ms[1] / dense[1]:.2f}")
        del layer, module


if __name__ == "__main__":
    main()
