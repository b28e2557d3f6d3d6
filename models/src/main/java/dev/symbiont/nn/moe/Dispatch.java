package dev.symbiont.nn.moe;

import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;

/**
 * How many token slots an expert takes. {@link Capacity} is Switch Transformer's (Fedus et al.
 * 2022, §2.2): each expert keeps at most ceil(factor · k · T / E) slots in token order and the
 * overflow is dropped (the token passes through the residual). {@link Dropless} is MegaBlocks'
 * (Gale et al. 2023): every slot is kept and groups have whatever size the router gives them.
 */
public sealed interface Dispatch {

    /** The most slots an expert keeps for T tokens routed to k of E experts ({@link MoeKernels#DROPLESS} for no limit). */
    int capacity(int tokens, int k, int experts);

    /** Keeps every slot. */
    record Dropless() implements Dispatch {
        @Override
        public int capacity(int tokens, int k, int experts) { return MoeKernels.DROPLESS; }

        @Override
        public String toString() { return "dropless"; }
    }

    /** Keeps at most ceil(factor · k · T / E) slots per expert; factor must be positive. */
    record Capacity(double factor) implements Dispatch {
        public Capacity {
            if (!(factor > 0) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException("moe dispatch: capacity factor must be a positive finite number, got " + factor);
            }
        }

        @Override
        public int capacity(int tokens, int k, int experts) { return Moe.capacity(factor, k, tokens, experts); }

        @Override
        public String toString() { return "capacity " + factor; }
    }

    static Dispatch dropless() { return new Dropless(); }

    static Dispatch capacity(double factor) { return new Capacity(factor); }
}
