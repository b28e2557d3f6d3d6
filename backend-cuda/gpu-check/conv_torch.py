#!/usr/bin/env python3
"""PyTorch's side of ConvBenchmark on the same GPU (cuDNN): conv2d 3x3 at ResNet-50's four stage widths,
forward without gradients and forward+backward, then one ResNet-50 training step (torchvision's, when
installed), float32 with TF32 off. Prints `torch conv <C> <H> <fwd ms> <fwd+bwd ms>` and
`torch resnet50 <batch> <size> <step ms> -`. Arguments: batch (64) and image size (224)."""
import sys

import torch

from torch_timing import timed

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.benchmark = True


def main():
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 224
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__}, cudnn {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}")
    for c, hw in ((64, 56), (128, 28), (256, 14), (512, 7)):
        hw = max(1, hw * size // 224)
        x = torch.randn(batch, c, hw, hw, device=dev, requires_grad=True)
        w = (torch.randn(c, c, 3, 3, device=dev) * 0.05).requires_grad_(True)
        g = torch.randn(batch, c, hw, hw, device=dev)

        def forward():
            with torch.no_grad():
                torch.nn.functional.conv2d(x, w, padding=1)

        def both():
            torch.nn.functional.conv2d(x, w, padding=1).backward(g)
            x.grad = None
            w.grad = None

        print(f"torch conv {c} {hw} {timed(forward):.3f} {timed(both):.3f}")
    try:
        import torchvision
    except ImportError:
        print("# torchvision is not installed: no ResNet-50 step")
        return
    model = torchvision.models.resnet50().to(dev)
    images = torch.randn(batch, 3, size, size, device=dev)
    labels = torch.zeros(batch, dtype=torch.long, device=dev)

    def step():
        torch.nn.functional.cross_entropy(model(images), labels).backward()
        model.zero_grad(set_to_none=True)

    print(f"torch resnet50 {batch} {size} {timed(step):.3f} -")


if __name__ == "__main__":
    main()
