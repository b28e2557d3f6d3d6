#!/usr/bin/env python3
"""PyTorch's side of GptStepBenchmark on the same GPU, eager (no torch.compile): the same GPT-2-small-shaped
model (d 768, 12 heads, 4d MLP with exact GELU, LayerNorm eps 1e-5, learned positions, tied embeddings,
vocabulary 50257, biases everywhere), one training step = forward, cross-entropy, backward, AdamW
(lr 3e-4, weight decay 0.01 on matrices only) and zeroed gradients; float32 with TF32 off and under
bfloat16 autocast. Prints `torch gpt-<fp32|bf16> <batch> <seq> <ms per step> -`.
Arguments: batch (8), seq (512), layers (12)."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_timing import timed

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
VOCAB, D, HEADS = 50257, 768, 12


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.fc, self.out = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln_1(x)).view(b, t, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, D)
        x = x + self.proj(a)
        return x + self.out(F.gelu(self.fc(self.ln_2(x))))


class Gpt(nn.Module):
    def __init__(self, layers, seq):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, D), nn.Embedding(seq, D)
        self.blocks = nn.ModuleList(Block() for _ in range(layers))
        self.ln_f = nn.LayerNorm(D)
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, std=0.02)

    def loss(self, ids, targets):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)
        logits = self.ln_f(x) @ self.wte.weight.t()
        return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))


def main():
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    seq = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    layers = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}, eager")
    torch.manual_seed(42)
    model = Gpt(layers, seq).to(dev)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}], lr=3e-4)
    i = torch.arange(batch * seq, device=dev)
    ids, targets = ((i * 7919 + 3) % VOCAB).view(batch, seq), ((i * 7919 + 7922) % VOCAB).view(batch, seq)

    def step():
        model.loss(ids, targets).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    def step_bf16():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model.loss(ids, targets)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for what, work in (("gpt-fp32", step), ("gpt-bf16", step_bf16)):
        print(f"torch {what} {batch} {seq} {timed(work):.3f} -")


if __name__ == "__main__":
    main()
