package dev.symbiont.core.distributed;

/**
 * How a collective combines the ranks' values, as PyTorch's {@code torch.distributed.ReduceOp}
 * names them. {@link #AVG} is the sum divided by the number of ranks (what data-parallel training
 * does to gradients); on integer tensors only {@link #SUM}, {@link #MAX} and {@link #MIN} apply.
 */
public enum Reduction {
    SUM, AVG, MAX, MIN
}
