package dev.symbiont.nn.mamba;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.block.MixerState;

import java.util.Arrays;

/**
 * The decoding state of a Mamba mixer of either kind: the last d_conv − 1 inputs of its causal
 * convolution and the recurrence's h, both of a fixed size whatever the context. Each kind has
 * its own subclass ({@link MambaMixer.State}, {@link Mamba2Mixer.State}), so a state is never
 * handed to the other kind.
 */
public abstract sealed class SsmState implements MixerState permits MambaMixer.State, Mamba2Mixer.State {
    Tensor conv, ssm;
    int length;

    @Override
    public final int length() { return length; }

    @Override
    public final void clear() {
        conv = null;
        ssm = null;
        length = 0;
    }

    /** The convolution's last d_conv − 1 inputs (batch, channels, d_conv − 1), or null while empty. */
    public final Tensor conv() { return conv; }

    /** The recurrence's h — Mamba-1 (batch, d_inner, N), Mamba-2 (batch, heads, P, N) — or null while empty. */
    public final Tensor ssm() { return ssm; }

    /** Throws, naming {@code mixer} and both shapes, unless a filled state has the expected shapes. */
    final void checkShapes(String mixer, int[] expectedConv, int[] expectedSsm) {
        if (ssm == null) return;
        if (!Arrays.equals(conv.shape(), expectedConv) || !Arrays.equals(ssm.shape(), expectedSsm)) {
            throw new IllegalArgumentException(mixer + ": the decoding state is from another model or batch: conv "
                    + Arrays.toString(conv.shape()) + ", ssm " + Arrays.toString(ssm.shape()) + ", expected conv "
                    + Arrays.toString(expectedConv) + ", ssm " + Arrays.toString(expectedSsm));
        }
    }
}
