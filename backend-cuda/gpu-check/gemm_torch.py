"""torch.matmul on the same GPU and the same cases as GemmBenchmark: n x n products, float32 (TF32 off),
TF32 (allow_tf32), bf16; CUDA events over 10 products after 3 warm-ups. One line per case:
torch <precision> <n> <ms per product> <TFLOP/s>."""
import sys

import torch

WARMUPS, ITERATIONS = 3, 10
sizes = [int(a) for a in sys.argv[1:]] or [1024, 2048, 4096, 8192]
print(f"# torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
for precision in ("fp32", "tf32", "bf16"):
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    for n in sizes:
        g = torch.Generator(device="cuda").manual_seed(42)
        a = (torch.rand(n, n, device="cuda", generator=g) * 2 - 1).to(dtype)
        b = (torch.rand(n, n, device="cuda", generator=g) * 2 - 1).to(dtype)
        for _ in range(WARMUPS):
            torch.matmul(a, b)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(ITERATIONS):
            torch.matmul(a, b)
        end.record()
        end.synchronize()
        ms = start.elapsed_time(end) / ITERATIONS
        print(f"torch {precision} {n} {ms:.3f} {2 * n ** 3 / (ms * 1e-3) / 1e12:.1f}")
        del a, b
