package dev.symbiont.nn.block;

import java.util.List;

/**
 * The incremental-decoding state of a whole stack: one {@link MixerState} per block, each of its
 * block's own kind (a KV cache for an attention block, a convolution window and recurrent state
 * for a Mamba block), so a stack that mixes kinds decodes like one that does not. Made empty by
 * {@link DecoderStack#newState}; a forward with it continues the positions it holds and extends
 * every layer's state alike.
 */
public final class DecodingState {
    private final List<MixerState> layers;

    /** @param layers one state per block, in block order; at least one */
    public DecodingState(List<? extends MixerState> layers) {
        if (layers.isEmpty()) throw new IllegalArgumentException("DecodingState: needs at least one layer");
        this.layers = List.copyOf(layers);
    }

    public int layers() { return layers.size(); }

    /** The state of block {@code index}. */
    public MixerState layer(int index) {
        if (index < 0 || index >= layers.size()) {
            throw new IndexOutOfBoundsException("DecodingState: layer " + index + " outside [0, " + layers.size() + ")");
        }
        return layers.get(index);
    }

    /** Positions held (those of layer 0: a forward through the stack advances every layer alike). */
    public int length() { return layers.getFirst().length(); }

    /** Empties every layer's state. */
    public void clear() { layers.forEach(MixerState::clear); }
}
