package dev.symbiont.nn.parallel;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;

/**
 * A test model whose registration order is not its gradient order: {@code head} (hidden, 2) is
 * registered before {@code body} (3, hidden) but used after it, so backward finishes head's
 * gradient first. {@code extra} (3, 2) joins the output only when the caller asks.
 * x: (batch, 3) → (batch, 2).
 */
final class Chain extends Module {
    final Parameter head, body, extra;

    Chain(int hidden, long seed) { this(hidden, seed, false); }

    /** With {@code unusedBias}, one more parameter "bias" (2) registered last that forward never uses. */
    Chain(int hidden, long seed, boolean unusedBias) {
        Generator g = new Generator(seed);
        head = parameter("head", Tensor.randn(g, hidden, 2));
        body = parameter("body", Tensor.randn(g, 3, hidden));
        extra = parameter("extra", Tensor.randn(g, 3, 2));
        if (unusedBias) parameter("bias", Tensor.zeros(2));
    }

    Tensor forward(Tensor x, boolean useExtra) {
        Tensor y = x.matmul(body.value()).tanh().matmul(head.value());
        return useExtra ? y.add(x.matmul(extra.value())) : y;
    }

    /** Mean squared output against zero: a loss whose gradient depends on every input row. */
    Tensor loss(Tensor x, boolean useExtra) { return forward(x, useExtra).square().mean(); }

    /** Rows of a fixed random input, different per {@code stream}: (rows, 3). */
    static Tensor input(int rows, long stream) { return Tensor.randn(new Generator(1000 + stream), rows, 3); }
}
