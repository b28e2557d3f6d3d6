package dev.symbiont.core.fused;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.scan.ScanKernels;

import java.util.List;

/** Every fused family core knows: a new family adds its line here. */
public final class Families {
    private Families() {}

    /** All families, in the order the docs list them. */
    public static List<Family<?>> all() {
        return List.of(NormKernels.FAMILY, ActivationKernels.FAMILY, AttentionKernels.FAMILY,
                ScanKernels.FAMILY, MoeKernels.FAMILY, ConvKernels.FAMILY);
    }

    /** The families {@code backend} implements with kernels of its own. */
    public static List<Family<?>> implementedBy(Backend backend) {
        return all().stream().filter(f -> backend.fused(f) != null).toList();
    }

    /** The family called {@code name}; throws listing the known names. */
    public static Family<?> named(String name) {
        for (Family<?> f : all()) if (f.name().equals(name)) return f;
        throw new IllegalArgumentException("no fused family named '" + name + "'; known: "
                + all().stream().map(Family::name).toList());
    }
}
