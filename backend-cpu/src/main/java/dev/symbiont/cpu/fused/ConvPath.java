package dev.symbiont.cpu.fused;

import dev.symbiont.core.EnumChoice;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.cpu.kernels.WinogradConv;

/**
 * How {@link CpuConv} computes a dense (non-depthwise) convolution, by the name the
 * {@value #PROPERTY} property uses: {@code auto} (the default) picks Winograd F(2×2, 3×3) where it
 * applies and measured faster, {@code winograd} takes it wherever it applies, {@code im2col}
 * never. Read on every call, so a test or a profile can switch paths inside one JVM.
 */
public enum ConvPath {
    AUTO, WINOGRAD, IM2COL;

    /** System property that forces a path: {@code auto}, {@code winograd} or {@code im2col}. */
    public static final String PROPERTY = "symbiont.cpu.conv";

    /**
     * Fewest input and output channels at which auto takes Winograd: below, the 16 GEMMs are too
     * thin for their packing and the transforms cost more than the FLOPs saved (a 3 → 64 stem).
     */
    static final int MIN_CHANNELS = 16;

    /** The property spelling. */
    public String id() {
        return EnumChoice.id(this);
    }

    /**
     * Parses {@code auto}, {@code winograd} or {@code im2col} (any case, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the property and the accepted values otherwise
     */
    public static ConvPath parse(String id) {
        return EnumChoice.parse(ConvPath.class, id, "-D" + PROPERTY);
    }

    /** The path the property names now (auto when unset or blank). */
    public static ConvPath current() {
        String s = System.getProperty(PROPERTY);
        return s == null || s.isBlank() ? AUTO : parse(s);
    }

    /** Whether this path runs g by Winograd: never where F(2×2, 3×3) does not apply. */
    public boolean winograd(ConvGeometry g) {
        if (!WinogradConv.applies(g)) return false;
        return switch (this) {
            case WINOGRAD -> true;
            case IM2COL -> false;
            case AUTO -> g.inChannels() >= MIN_CHANNELS && g.outChannels() >= MIN_CHANNELS;
        };
    }
}
