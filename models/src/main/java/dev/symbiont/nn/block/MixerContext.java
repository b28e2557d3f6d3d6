package dev.symbiont.nn.block;

import dev.symbiont.core.Tensor;

/**
 * What a {@link SequenceMixer} reads besides its input: the attention mask, whether positions
 * may see only the past, and this block's decoding state.
 *
 * @param mask   null, or additive float32 broadcastable to (batch, heads, seq, state.length() + seq)
 *               (0 keep, −∞ drop); a mixer that cannot honour a mask throws when given one
 * @param causal each position sees only itself and earlier ones; a mixer that is causal by
 *               construction (a recurrence) throws when asked to be bidirectional
 * @param state  null for a whole sequence, or the state this mixer made with {@link SequenceMixer#newState}:
 *               the input continues the positions it holds, and the mixer extends it
 */
public record MixerContext(Tensor mask, boolean causal, MixerState state) {
    /**
     * The state as the kind {@code mixer} made, or null without one.
     *
     * @throws IllegalArgumentException naming both kinds when the state was made by another kind of mixer
     */
    public <S extends MixerState> S stateAs(Class<S> kind, String mixer) {
        if (state == null || kind.isInstance(state)) return kind.cast(state);
        throw new IllegalArgumentException(mixer + ": expected its own decoding state (" + kind.getSimpleName() + "), got a "
                + state.getClass().getSimpleName() + "; each block must get the state its own mixer made (newState)");
    }
}
