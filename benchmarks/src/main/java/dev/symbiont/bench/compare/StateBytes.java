package dev.symbiont.bench.compare;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.attention.KvCache;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.block.MixerState;
import dev.symbiont.nn.mamba.SsmState;

/** The memory a decoding state holds: attention's KV caches, or a state-space mixer's conv windows and SSM states. */
public final class StateBytes {
    private StateBytes() {}

    /** The bytes of every tensor {@code state} holds, summed over its layers. */
    public static long of(DecodingState state) {
        long bytes = 0;
        for (int i = 0; i < state.layers(); i++) {
            MixerState layer = state.layer(i);
            bytes += switch (layer) {
                case KvCache kv -> bytes(kv.keys()) + bytes(kv.values());
                case SsmState s -> bytes(s.conv()) + bytes(s.ssm());
                default -> throw new IllegalArgumentException("StateBytes: no byte count for a " + layer.getClass().getSimpleName()
                        + " (layer " + i + ")");
            };
        }
        return bytes;
    }

    private static long bytes(Tensor t) { return t == null ? 0 : t.numel() * t.dtype().byteSize(); }
}
