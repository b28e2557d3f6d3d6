package dev.symbiont.nn.block;

/**
 * One block's incremental-decoding state: what its sequence mixer keeps of the positions it has
 * seen so that the next ones can be processed alone. Attention keeps every key and value
 * ({@link dev.symbiont.nn.attention.KvCache}, growing with the sequence); a state-space mixer
 * keeps a fixed-size convolution window and recurrent state. A state is made empty by
 * {@link SequenceMixer#newState} and belongs to the one mixer that made it.
 */
public interface MixerState {
    /** Positions consumed so far: the absolute position of the next input's first row. */
    int length();

    /** Forgets every position; the state is empty again. */
    void clear();
}
