package dev.symbiont.bench.torch;

import org.bytedeco.pytorch.Tensor;

/** The two libtorch idioms the peer needs from Java: a kept leaf that requires grad, and grad = None. */
final class TorchTensors {
    private TorchTensors() {}

    /** A detached copy of {@code t} that requires grad, kept alive outside any PointerScope. */
    static Tensor leaf(Tensor t) {
        Tensor leaf = t.detach();
        leaf.set_requires_grad(true);
        leaf.retainReference();
        return leaf;
    }

    /** {@code t.grad = None}: the next backward allocates a fresh gradient, as PyTorch's zero_grad() leaves it. */
    static void clearGrad(Tensor t) {
        t.mutable_grad().put(new Tensor());
    }
}
